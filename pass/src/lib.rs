//! klap: an LLVM pass plugin that makes CUDA dynamic parallelism fast.
//!
//! Layers, each using only those below it (docs/architecture.md):
//! - [`plugin`]: the entry points LLVM and the C++ shim call, the options, the pipeline of steps;
//! - [`transform`] and [`print`]: one module per transformation, and the printers;
//! - [`child`] (variants of a child kernel) and [`runtime`] (the device runtime's entry points);
//! - [`reduction`] (a child's warp reductions, followed lane by lane for its reduced-serial variant);
//! - [`site`] (the launch-site model, its recognizer and the operations on a site), [`callgraph`],
//!   [`remarks`];
//! - [`llvm`]: inkwell, what inkwell lacks, and the shim: the only module with unchecked (FFI) code.

pub mod callgraph;
pub mod child;
pub mod llvm;
pub mod plugin;
pub mod print;
pub mod reduction;
pub mod remarks;
pub mod runtime;
pub mod site;
pub mod transform;
