//! ptxc's Turing SM simulator: loads sm_75 cubins and runs them.
