import ImgviewImaging

extension ImageFuzzing {
    /// How the pipeline judges a body of unannounced length: never a crash, and whole stays whole.
    ///
    /// Bytes after an image's end (trailing data, or the next file) do not make it incomplete, so a
    /// verdict of complete must survive anything appended.
    static func checkCompleteness(_ bytes: [UInt8], format: ImageFormat) {
        let verdict = ImageCompleteness.verdict(bytes, format: format)
        guard verdict == .complete else { return }
        precondition(
            ImageCompleteness.verdict(bytes + [0xFF, 0xD9, 0x00, 0x3B], format: format) == .complete,
            "a complete image became incomplete with bytes appended")
    }
}
