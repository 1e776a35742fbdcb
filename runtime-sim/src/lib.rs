//! ptxc's SM simulator: loads sm_75, sm_80, sm_86, sm_89, sm_90 and sm_90a cubins (ptxc's and ptxas's),
//! decodes them with the back end's ISA description, and runs kernels warp by warp on a device
//! model of the cubin's architecture ([`config`]). Every instruction's control code is checked
//! against NVIDIA's latency rules for that architecture, so schedules that would give wrong
//! results on hardware are reported as hazards.

pub mod config;
pub mod decoded;
pub mod device;
pub mod driver;
pub mod error;
pub mod exec;
pub mod fp;
pub mod memory;
pub mod mods;
pub mod module;
pub mod stats;
pub mod tensor_map;
pub mod timed;

pub use config::Config;
pub use device::{Device, Engine, KernelArg};
pub use error::{Location, SimError};
pub use exec::LaunchDims;
pub use stats::Stats;
pub use timed::trace::Trace;
