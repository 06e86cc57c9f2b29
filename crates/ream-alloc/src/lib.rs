//! Counting allocator (in progress).
