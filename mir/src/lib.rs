//! ptxc's mid-level IR: an SSA form of PTX kernels on cranelift-entity arenas, with block
//! parameters instead of phis. [`lower`] builds it from the front end's checked module;
//! [`ir::verify`] checks it; the back end selects SASS from it.

pub mod analysis;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod opt;
