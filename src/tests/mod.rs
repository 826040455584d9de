//! Tests that drive internal stages or compare commands: check and build agreeing, property
//! tests over the whole pipeline and fuzz targets. They drive internal stages
//! (decoding, each converter, packaging, the zip writer) directly, so they live with the crate.

mod agreement;
mod fuzz;
mod guide;
mod heldout;
mod imports;
mod layers;
mod prefetch;
mod properties;
