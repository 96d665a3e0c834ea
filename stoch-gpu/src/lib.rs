//! stoch-gpu
