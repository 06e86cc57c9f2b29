//! Allocation-free XML scanning primitives (in progress).
