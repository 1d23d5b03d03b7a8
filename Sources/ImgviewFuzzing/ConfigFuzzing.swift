import ImgviewConfig

/// A config file as imgview reads it at start: TOML (TOMLKit over toml++), then each value checked.
enum ConfigFuzzing {
    static func run(_ bytes: [UInt8]) {
        guard let file = try? ConfigFile.parse(bytes, path: "fuzz.toml") else { return }
        for entry in file.entries { precondition(entry.line >= 1, "a setting without a line") }
        _ = try? ConfigSchema.validate(file)
    }
}
