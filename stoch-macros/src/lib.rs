//! stoch-macros
