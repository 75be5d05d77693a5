pub mod domain;
pub mod explain;
pub mod explore;
pub mod insights;
pub mod model;
pub mod run;
