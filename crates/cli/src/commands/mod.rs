pub mod explain;
pub mod insights;
pub mod model;
pub mod run;
