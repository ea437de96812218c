//! Arbitrary bytes as a `.npy` file: an array or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(array) = simt_io::npy::read(data) {
        // A shape such as (2**62, 2**62, 0) holds no data; its product overflows usize.
        let Some(elems) = array.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) else {
            assert!(array.data.is_empty());
            return;
        };
        assert_eq!(elems * array.dtype.size(), array.data.len());
        let again = simt_io::npy::write(array.dtype, &array.shape, &array.data);
        assert_eq!(simt_io::npy::read(&again).expect("written .npy reads back"), array);
    }
});
