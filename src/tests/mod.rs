//! Property tests over the whole pipeline and fuzz targets: they drive internal stages
//! (decoding, each converter, packaging, the zip writer) directly, so they live with the crate.

mod fuzz;
mod properties;
