//! Corpus smoke test.
