//! The decoder on bad input: random words, words one to three bit flips away from every
//! form's template, truncated code and corrupted cubins never panic; errors name the offset
//! and the raw words; and any word the decoder accepts fits exactly one form, re-encodes to
//! itself and prints.

use ptxc_sass::cubin;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::bits::to_words;
use ptxc_sass::isa::{DecodeError, decode, decode_all, encode, isa, matching_forms, text};
use std::path::PathBuf;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn word(&mut self) -> u128 {
        self.next() as u128 | (self.next() as u128) << 64
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Decodes `word` and checks the error message or the round trip.
fn check(word: u128, offset: u64) -> bool {
    match decode(Arch::Sm75, word, offset) {
        Ok(inst) => {
            let forms = matching_forms(Arch::Sm75, word).unwrap();
            assert_eq!(forms.len(), 1, "{word:#034x} fits several forms: {forms:?}");
            let again = encode(&inst).unwrap_or_else(|e| panic!("{word:#034x} decodes but does not encode: {e}"));
            assert_eq!(
                again, word,
                "{word:#034x} decodes to {inst:?} but re-encodes differently"
            );
            assert!(!text::inst_text(&inst, offset, &text::AddressLabels).is_empty());
            true
        }
        Err(e) => {
            let msg = e.to_string();
            let (w0, w1) = to_words(word);
            assert!(msg.contains(&format!("{offset:#x}")), "no offset in `{msg}`");
            assert!(
                msg.contains(&format!("{w0:#018x}")) && msg.contains(&format!("{w1:#018x}")),
                "no words in `{msg}`"
            );
            false
        }
    }
}

#[test]
fn random_words_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for i in 0..200_000u64 {
        accepted += check(rng.word(), i * 16) as usize;
    }
    println!("{accepted} of 200000 random words decode");
}

#[test]
fn words_near_every_form_never_panic_and_round_trip() {
    let mut rng = Rng(42);
    let mut accepted = 0;
    let mut tried = 0;
    for (_, form) in isa().forms() {
        for _ in 0..200 {
            let mut word = form.template;
            for _ in 0..=rng.below(3) {
                word ^= 1u128 << rng.below(128);
            }
            accepted += check(word, 0x40) as usize;
            tried += 1;
        }
    }
    println!("{accepted} of {tried} near-template words decode");
}

#[test]
fn truncated_code_is_an_error() {
    let nop = 0x000fc00000000000_0000000000007918u128.to_le_bytes();
    let mut code = nop.repeat(3);
    assert!(decode_all(Arch::Sm75, &code).is_ok());
    code.pop();
    assert_eq!(decode_all(Arch::Sm75, &code), Err(DecodeError::Truncated(47)));
    assert!(decode_all(Arch::Sm75, &[]).unwrap().is_empty());
}

/// The cubins checked in for the cubin tests.
fn sample_cubins() -> Vec<Vec<u8>> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cubin"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no sample cubins in {}", dir.display());
    files.iter().map(|p| std::fs::read(p).expect("read cubin")).collect()
}

/// Reads a cubin and decodes every kernel; must not panic whatever the bytes.
fn read_and_decode(bytes: &[u8]) -> usize {
    let Ok(module) = cubin::read(bytes) else { return 0 };
    module
        .kernels
        .iter()
        .map(|k| decode_all(Arch::Sm75, &k.code).map_or(0, |insts| insts.len()))
        .sum()
}

#[test]
fn corrupted_and_truncated_cubins_never_panic() {
    let mut rng = Rng(7);
    for bytes in sample_cubins() {
        assert!(read_and_decode(&bytes) > 0, "a sample cubin decodes");
        for cut in (0..bytes.len()).step_by(97) {
            read_and_decode(&bytes[..cut]);
        }
        for _ in 0..300 {
            let mut bad = bytes.clone();
            for _ in 0..=rng.below(8) {
                let i = rng.below(bad.len() as u64) as usize;
                bad[i] ^= 1 << rng.below(8);
            }
            read_and_decode(&bad);
        }
    }
}
