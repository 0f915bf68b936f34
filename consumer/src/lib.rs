//! The consumer: session, record decoding, formatting, aggregations, speculations.
