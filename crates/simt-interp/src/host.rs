//! Host side: turning arguments into buffers and parameters, and buffers back into output.
