//! Tensor-core semantics.
