//! `libcuda.so.1` backed by ptxc: the CUDA driver API's C ABI, so that unmodified CUDA
//! programs (numba-cuda, Triton's launcher, CUDA Python, C programs using the driver API) run
//! on any CPU. PTX is compiled in-process by ptxc's pipeline, cubins (ptxc's or ptxas's) are
//! loaded as they are, and every kernel runs on ptxc's SM simulator, executing the SASS a GPU
//! would run. See `README.md` for what is supported and how to use it.
//!
//! Layout: [`types`] (the C types and result codes), [`model`] (the simulated device and its
//! attributes), [`state`] (contexts, modules, streams, events, the one simulated device),
//! [`image`] (cubins, fat binaries, PTX), [`jit`] (PTX compilation and JIT options), [`link`]
//! (the linker entry points), [`api`] (every other entry point), [`procaddress`]
//! (`cuGetProcAddress`) and [`exports`] (the table of implemented entry points).

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

pub mod api;
pub mod exports;
pub mod image;
pub mod jit;
pub mod link;
pub mod log;
pub mod model;
pub mod procaddress;
pub mod state;
pub mod types;
