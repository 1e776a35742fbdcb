//! ptxc's mid-level IR: an SSA form of PTX kernels on cranelift-entity arenas.
