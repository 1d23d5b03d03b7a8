import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the kitty graphics protocol: images sent in chunks under an id, placed, and deleted.
///
/// Every command is quiet (`q=2`), so the terminal never answers into the program's input.
/// Payloads are PNG (`f=100`) when an encoder is at hand, raw RGB (`f=24`) otherwise; either is
/// base64 in chunks of 4096 bytes, as the protocol asks.
public struct KittyGraphicsEncoder: Sendable {
    /// Base64 bytes per chunk: the protocol's maximum.
    public static let chunkSize = 4096

    /// What the pixels travel as.
    public enum Payload: Sendable, Equatable {
        case png(Data)
        case rgb(RGBImage)
    }

    /// Wrap every command for tmux (see `TerminalRoute`).
    public var passthrough: Bool

    public init(passthrough: Bool = false) {
        self.passthrough = passthrough
    }

    /// Transmits `payload` as image `id` and places it at the cursor, one image pixel to one
    /// screen pixel (the payload was scaled for this terminal's cells).
    ///
    /// With `movesCursor` false the cursor stays where it was (for a full-screen program);
    /// otherwise it ends after the image, as text would.
    public func display(_ payload: Payload, id: UInt32, movesCursor: Bool = true) -> [UInt8] {
        transmit(payload, keys: "a=T,i=\(id),q=2" + (movesCursor ? "" : ",C=1"))
    }

    /// Transmits `payload` as image `id` with a virtual placement `columns × rows` cells large
    /// (`U=1`): drawn nowhere until `KittyPlaceholders` text for it is written, wherever that is.
    public func displayVirtually(_ payload: Payload, id: UInt32, columns: Int, rows: Int) -> [UInt8] {
        transmit(payload, keys: "a=T,U=1,i=\(id),c=\(columns),r=\(rows),q=2")
    }

    private func transmit(_ payload: Payload, keys: String) -> [UInt8] {
        switch payload {
        case .png(let png):
            return png.withUnsafeBytes { transmit(UnsafeRawBufferPointer($0), keys: keys + ",f=100") }
        case .rgb(let image):
            return image.bytes.withUnsafeBytes { transmit($0, keys: keys + ",f=24,s=\(image.width),v=\(image.height)") }
        }
    }

    /// `raw` in base64, a chunk at a time: 3 bytes become 4, so each chunk of `chunkSize`
    /// characters is the encoding of its own raw bytes, and no whole encoded copy is made (a
    /// full-screen image is megabytes; DECISIONS.md, "Pixel previews at full screen").
    private func transmit(_ raw: UnsafeRawBufferPointer, keys: String) -> [UInt8] {
        let rawChunk = Self.chunkSize / 4 * 3
        let encodedCount = (raw.count + 2) / 3 * 4
        var output: [UInt8] = []
        output.reserveCapacity(encodedCount + encodedCount / Self.chunkSize * 32 + 64)
        var start = 0
        repeat {
            let end = min(start + rawChunk, raw.count)
            let more = end < raw.count ? 1 : 0
            // The first chunk carries the keys; the others only say whether more follow.
            let control = start == 0 ? "\(keys),m=\(more)" : "m=\(more)"
            let encoded = Array(Data(raw[start..<end]).base64EncodedData())
            output += command(control, payload: encoded[...])
            start = end
        } while start < raw.count
        return output
    }

    /// Deletes image `id` and frees its data in the terminal.
    public func delete(id: UInt32) -> [UInt8] {
        command("a=d,d=I,i=\(id),q=2", payload: [])
    }

    /// Deletes every image this program's screen shows (visible placements), freeing their data.
    public func deleteAll() -> [UInt8] {
        command("a=d,d=A,q=2", payload: [])
    }

    /// Asks whether the terminal takes images, with a 1×1 image it must not keep (`a=q`): answered
    /// `APC G i=id ; OK ST`, or with the error, by a terminal that draws kitty graphics.
    public func query(id: UInt32) -> [UInt8] {
        command("i=\(id),s=1,v=1,a=q,t=d,f=24", payload: Array("AAAA".utf8)[...])
    }

    /// The same question with a virtual placement (`U=1`): kitty before 0.28, which has no Unicode
    /// placeholders, takes the unknown key for a malformed command and does not answer at all.
    public func placeholderQuery(id: UInt32) -> [UInt8] {
        command("i=\(id),s=1,v=1,a=q,t=d,f=24,U=1", payload: Array("AAAA".utf8)[...])
    }

    /// One command: `APC G keys [; payload] ST`, each wrapped on its own for tmux (tmux drops a
    /// passthrough string larger than its input buffer, so a big image must not be one).
    private func command(_ control: String, payload: ArraySlice<UInt8>) -> [UInt8] {
        var body: [UInt8] = Array("G\(control)".utf8)
        if !payload.isEmpty {
            body.append(UInt8(ascii: ";"))
            body += payload
        }
        return TerminalRoute(passthrough: passthrough).wrap(ControlString.apc.framed(body))
    }
}
