import ImgviewSupport

/// The text that shows a kitty image through Unicode placeholders (kitty 0.28 and later, Ghostty):
/// each cell the image covers is U+10EEEE with combining diacritics that say its row and column in
/// the image, the image's id in its foreground colour. The image itself is sent once with a
/// virtual placement (`U=1`) and drawn by the terminal wherever that text is, so a program in
/// between that keeps text (tmux) moves, scrolls, clips and redraws the image with it.
///
/// The id's lowest byte is a 256-colour foreground (`38;5;n`) and its highest a third diacritic,
/// so ids here have their two middle bytes zero and the lowest at least 16 (`imageID(for:)`): a
/// 256-colour index survives tmux whatever it knows of the outer terminal's colours, where a 24-bit
/// one is turned into the nearest of 256 (and the id with it) when tmux thinks that terminal lacks them.
public struct KittyPlaceholders: Sendable, Hashable {
    /// U+10EEEE, a private-use character kitty reserves for this.
    public static let character: Unicode.Scalar = "\u{10EEEE}"

    /// The most rows or columns one image's placeholders can number: the diacritics there are.
    public static var largestSpan: Int { diacritics.count }

    public var imageID: UInt32
    public var columns: Int
    public var rows: Int

    public init(imageID: UInt32, columns: Int, rows: Int) {
        self.imageID = imageID
        self.columns = max(1, min(columns, Self.largestSpan))
        self.rows = max(1, min(rows, Self.largestSpan))
    }

    /// How many placeholder ids there are: 240 low bytes (16…255) under each of 256 highest bytes.
    public static let idCount = 240 * 256

    /// Where this process's ids start among the `idCount`, at random: every pane inside tmux shares
    /// the outer terminal's images, so two imgview processes (or two `show`s in one pane, whose
    /// earlier image stays in the scrollback) must not reuse one another's ids. A random start in
    /// all of them, not a random highest byte alone, makes two `show`s of one image each collide
    /// once in 61,440 rather than once in 256.
    public static let processStart = Int.random(in: 0..<idCount)

    /// The placeholder id for the program's id `id` (1, 2, … for `show`'s images; a grid's count; the
    /// pane's): its low 16 bits counted on from `start` through the `idCount` ids, wrapping, so a
    /// process's distinct ids stay distinct.
    public static func imageID(for id: UInt32, start: Int = processStart) -> UInt32 {
        let number = (Int(id & 0xFFFF) + start) % idCount
        return UInt32(number / 240) << 24 | UInt32(16 + number % 240)
    }

    /// One row of the image (0 is the top): the colour, the cells, the default colour again.
    public func row(_ row: Int) -> [UInt8] {
        var bytes = SGR.sequence([.foreground(.palette(UInt8(truncatingIfNeeded: imageID)))])
        bytes.reserveCapacity(bytes.count + columns * 10 + 8)
        let rowMark = Self.diacritic(row)
        let highMark = Self.diacritic(Int(imageID >> 24))
        for column in 0..<columns {
            Self.append(Self.character, to: &bytes)
            Self.append(rowMark, to: &bytes)
            Self.append(Self.diacritic(column), to: &bytes)
            Self.append(highMark, to: &bytes)
        }
        return bytes + SGR.sequence([.foreground(.default)])
    }

    /// Every row, from the cursor down: after each, back to `column` on the next line (carriage
    /// return, cursor down, forward), which never scrolls. The cursor ends after the last row.
    public func block(column: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for row in 0..<rows {
            if row > 0 {
                bytes += [UInt8(ascii: "\r")] + EscapeSequence.cursorDown(1)
                if column > 0 { bytes += EscapeSequence.cursorForward(column) }
            }
            bytes += self.row(row)
        }
        return bytes
    }

    /// The diacritic that numbers `number` (0 is U+0305).
    public static func diacritic(_ number: Int) -> Unicode.Scalar {
        diacritics[max(0, min(number, diacritics.count - 1))]
    }

    private static func append(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        bytes += Array(String(Character(scalar)).utf8)
    }

    /// kitty's `rowcolumn-diacritics.txt` (the protocol's table, from Unicode 6.0's combining marks
    /// of class 230): the diacritic at index n means n.
    static let diacritics: [Unicode.Scalar] = [
        "\u{0305}", "\u{030D}", "\u{030E}", "\u{0310}", "\u{0312}", "\u{033D}", "\u{033E}", "\u{033F}", "\u{0346}", "\u{034A}",
        "\u{034B}", "\u{034C}", "\u{0350}", "\u{0351}", "\u{0352}", "\u{0357}", "\u{035B}", "\u{0363}", "\u{0364}", "\u{0365}",
        "\u{0366}", "\u{0367}", "\u{0368}", "\u{0369}", "\u{036A}", "\u{036B}", "\u{036C}", "\u{036D}", "\u{036E}", "\u{036F}",
        "\u{0483}", "\u{0484}", "\u{0485}", "\u{0486}", "\u{0487}", "\u{0592}", "\u{0593}", "\u{0594}", "\u{0595}", "\u{0597}",
        "\u{0598}", "\u{0599}", "\u{059C}", "\u{059D}", "\u{059E}", "\u{059F}", "\u{05A0}", "\u{05A1}", "\u{05A8}", "\u{05A9}",
        "\u{05AB}", "\u{05AC}", "\u{05AF}", "\u{05C4}", "\u{0610}", "\u{0611}", "\u{0612}", "\u{0613}", "\u{0614}", "\u{0615}",
        "\u{0616}", "\u{0617}", "\u{0657}", "\u{0658}", "\u{0659}", "\u{065A}", "\u{065B}", "\u{065D}", "\u{065E}", "\u{06D6}",
        "\u{06D7}", "\u{06D8}", "\u{06D9}", "\u{06DA}", "\u{06DB}", "\u{06DC}", "\u{06DF}", "\u{06E0}", "\u{06E1}", "\u{06E2}",
        "\u{06E4}", "\u{06E7}", "\u{06E8}", "\u{06EB}", "\u{06EC}", "\u{0730}", "\u{0732}", "\u{0733}", "\u{0735}", "\u{0736}",
        "\u{073A}", "\u{073D}", "\u{073F}", "\u{0740}", "\u{0741}", "\u{0743}", "\u{0745}", "\u{0747}", "\u{0749}", "\u{074A}",
        "\u{07EB}", "\u{07EC}", "\u{07ED}", "\u{07EE}", "\u{07EF}", "\u{07F0}", "\u{07F1}", "\u{07F3}", "\u{0816}", "\u{0817}",
        "\u{0818}", "\u{0819}", "\u{081B}", "\u{081C}", "\u{081D}", "\u{081E}", "\u{081F}", "\u{0820}", "\u{0821}", "\u{0822}",
        "\u{0823}", "\u{0825}", "\u{0826}", "\u{0827}", "\u{0829}", "\u{082A}", "\u{082B}", "\u{082C}", "\u{082D}", "\u{0951}",
        "\u{0953}", "\u{0954}", "\u{0F82}", "\u{0F83}", "\u{0F86}", "\u{0F87}", "\u{135D}", "\u{135E}", "\u{135F}", "\u{17DD}",
        "\u{193A}", "\u{1A17}", "\u{1A75}", "\u{1A76}", "\u{1A77}", "\u{1A78}", "\u{1A79}", "\u{1A7A}", "\u{1A7B}", "\u{1A7C}",
        "\u{1B6B}", "\u{1B6D}", "\u{1B6E}", "\u{1B6F}", "\u{1B70}", "\u{1B71}", "\u{1B72}", "\u{1B73}", "\u{1CD0}", "\u{1CD1}",
        "\u{1CD2}", "\u{1CDA}", "\u{1CDB}", "\u{1CE0}", "\u{1DC0}", "\u{1DC1}", "\u{1DC3}", "\u{1DC4}", "\u{1DC5}", "\u{1DC6}",
        "\u{1DC7}", "\u{1DC8}", "\u{1DC9}", "\u{1DCB}", "\u{1DCC}", "\u{1DD1}", "\u{1DD2}", "\u{1DD3}", "\u{1DD4}", "\u{1DD5}",
        "\u{1DD6}", "\u{1DD7}", "\u{1DD8}", "\u{1DD9}", "\u{1DDA}", "\u{1DDB}", "\u{1DDC}", "\u{1DDD}", "\u{1DDE}", "\u{1DDF}",
        "\u{1DE0}", "\u{1DE1}", "\u{1DE2}", "\u{1DE3}", "\u{1DE4}", "\u{1DE5}", "\u{1DE6}", "\u{1DFE}", "\u{20D0}", "\u{20D1}",
        "\u{20D4}", "\u{20D5}", "\u{20D6}", "\u{20D7}", "\u{20DB}", "\u{20DC}", "\u{20E1}", "\u{20E7}", "\u{20E9}", "\u{20F0}",
        "\u{2CEF}", "\u{2CF0}", "\u{2CF1}", "\u{2DE0}", "\u{2DE1}", "\u{2DE2}", "\u{2DE3}", "\u{2DE4}", "\u{2DE5}", "\u{2DE6}",
        "\u{2DE7}", "\u{2DE8}", "\u{2DE9}", "\u{2DEA}", "\u{2DEB}", "\u{2DEC}", "\u{2DED}", "\u{2DEE}", "\u{2DEF}", "\u{2DF0}",
        "\u{2DF1}", "\u{2DF2}", "\u{2DF3}", "\u{2DF4}", "\u{2DF5}", "\u{2DF6}", "\u{2DF7}", "\u{2DF8}", "\u{2DF9}", "\u{2DFA}",
        "\u{2DFB}", "\u{2DFC}", "\u{2DFD}", "\u{2DFE}", "\u{2DFF}", "\u{A66F}", "\u{A67C}", "\u{A67D}", "\u{A6F0}", "\u{A6F1}",
        "\u{A8E0}", "\u{A8E1}", "\u{A8E2}", "\u{A8E3}", "\u{A8E4}", "\u{A8E5}", "\u{A8E6}", "\u{A8E7}", "\u{A8E8}", "\u{A8E9}",
        "\u{A8EA}", "\u{A8EB}", "\u{A8EC}", "\u{A8ED}", "\u{A8EE}", "\u{A8EF}", "\u{A8F0}", "\u{A8F1}", "\u{AAB0}", "\u{AAB2}",
        "\u{AAB3}", "\u{AAB7}", "\u{AAB8}", "\u{AABE}", "\u{AABF}", "\u{AAC1}", "\u{FE20}", "\u{FE21}", "\u{FE22}", "\u{FE23}",
        "\u{FE24}", "\u{FE25}", "\u{FE26}", "\u{10A0F}", "\u{10A38}", "\u{1D185}", "\u{1D186}", "\u{1D187}", "\u{1D188}", "\u{1D189}",
        "\u{1D1AA}", "\u{1D1AB}", "\u{1D1AC}", "\u{1D1AD}", "\u{1D242}", "\u{1D243}", "\u{1D244}",
    ]
}
