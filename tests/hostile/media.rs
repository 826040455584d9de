//! Hostile media: images, covers, fonts, SVG and CSS from the project.
