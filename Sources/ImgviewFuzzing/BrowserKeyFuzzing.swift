import ImgviewBrowser
import ImgviewSupport

/// Bytes arriving at the browser as keys: what the user types, and whatever a terminal sends
/// (escape sequences ncurses did not decode, late answers, noise).
///
/// The decoder must keep nothing unbounded, give at most one output per key, and never turn an
/// escape sequence into a key that quits: the same bytes wrapped so that every one is inside a
/// sequence must come out as no key but the navigation keys sequences stand for.
enum BrowserKeyFuzzing {
    static func run(_ bytes: [UInt8]) {
        // As typed, split into reads wherever a byte says so (the high bit).
        var decoder = BrowserKeyDecoder()
        var outputs = 0
        var keys = 0
        for byte in bytes {
            keys += 1
            outputs += decoder.feed(key(byte & 0x7F)).count
            if byte & 0x80 != 0 { outputs += decoder.endOfInput().count }
        }
        outputs += decoder.endOfInput().count
        precondition(outputs <= keys, "more keys out than went in")
        precondition(decoder.isIdle || !bytes.isEmpty, "a decoder that read nothing is waiting")

        // Every byte inside a sequence: CSI parameters with a final from the input, SS3, and
        // control strings ended by BEL or ST. None of it may be Escape, a typed character, Ctrl-C or Ctrl-Z.
        var wrapped = BrowserKeyDecoder()
        var index = 0
        var produced: [BrowserKeyDecoder.Output] = []
        while index < bytes.count {
            let kind = bytes[index] % 4
            index += 1
            var sequence: [UInt8] = [ControlCode.escape]
            switch kind {
            case 0:
                sequence.append(ControlCode.csiIntroducer)
                while index < bytes.count, ControlCode.isCSIParameter(bytes[index]) {
                    sequence.append(bytes[index])
                    index += 1
                }
                sequence.append(index < bytes.count ? 0x40 + bytes[index] % 0x3F : UInt8(ascii: "~"))
                index += 1
            case 1:
                sequence.append(ControlCode.ss3Introducer)
                sequence.append(index < bytes.count ? 0x40 + bytes[index] % 0x3F : UInt8(ascii: "H"))
                index += 1
            default:
                sequence.append(
                    [ControlCode.oscIntroducer, ControlCode.dcsIntroducer, ControlCode.apcIntroducer][Int(bytes[index - 1]) % 3])
                while index < bytes.count, bytes[index] != ControlCode.escape, bytes[index] != ControlCode.bell {
                    sequence.append(bytes[index])
                    index += 1
                }
                index += 1
                sequence += kind == 2 ? [ControlCode.bell] : ControlCode.stringTerminator
            }
            for byte in sequence { produced += wrapped.feed(key(byte)) }
        }
        produced += wrapped.endOfInput()
        for output in produced {
            guard case .key(let key) = output else { continue }
            switch key {
            case .character(let character):
                // The keypad's application keys are digits and operators; nothing else is a character.
                precondition("0123456789+-*/.".contains(character), "an escape sequence came out as \(key)")
            case .escape, .interrupt, .suspend, .tab, .backspace:
                preconditionFailure("an escape sequence came out as \(key)")
            default:
                break
            }
            precondition(BrowserCommand(key: key) != .quit && BrowserCommand(key: key) != .dismiss, "an escape sequence quits")
        }
    }

    /// The key ncurses would hand over for `byte` (its raw mode, keypad on but nothing decoded).
    private static func key(_ byte: UInt8) -> BrowserKey {
        switch byte {
        case 3: .interrupt
        case 9: .tab
        case 10, 13: .enter
        case 8, 127: .backspace
        case 26: .suspend
        case ControlCode.escape: .escape
        default: .character(Character(Unicode.Scalar(byte)))
        }
    }
}
