pub mod explain;
pub mod model;
