//! Unit tests of the key derivation and ciphers.
