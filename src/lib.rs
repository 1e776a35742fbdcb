//! ptxc as a library: the stages behind the `ptxc` command.
