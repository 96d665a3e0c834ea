//! stoch-core
