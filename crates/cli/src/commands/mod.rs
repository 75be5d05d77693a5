pub mod explain;
pub mod model;
pub mod run;
