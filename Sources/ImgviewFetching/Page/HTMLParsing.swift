#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Starts HTML parsers: the seam between reading a web page and the library that parses it.
///
/// `ImgviewHTML.LibXMLHTMLParser` (libxml2's HTML push parser, opened on first use) is the live
/// one; the core chooses none, since only that module may load libxml2.
public protocol HTMLParsing: Sendable {
    /// A parser for one document, which reports its elements to `handler` as bytes are fed to it.
    ///
    /// Throws `PageError.parserUnavailable` when the library cannot be loaded.
    func parser(reportingTo handler: any HTMLElementHandling) throws -> any HTMLDocumentParsing
}

/// One document being parsed as its bytes arrive. Used from one thread at a time.
public protocol HTMLDocumentParsing: AnyObject {
    /// Parses `bytes`, the document's next ones, reporting what they complete.
    func feed(_ bytes: UnsafeRawBufferPointer)
    /// The document ended: reports what was still open.
    func finish()
}

/// An attribute of a start tag as the parser reports it: the name in lower case, entities in
/// the value decoded, the value nil when the attribute has none (`<img ismap>`).
public struct HTMLAttribute: Sendable, Equatable {
    public let name: String
    public let value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// Receives a document's elements in document order, as the parser meets them.
public protocol HTMLElementHandling: AnyObject {
    /// A start tag (an implied one too): the element's lower-case name and its attributes in order.
    func startElement(_ name: String, attributes: [HTMLAttribute])
    func endElement(_ name: String)
    /// Whether `text(_:)` should be called for the text that comes now (a title, say): text is
    /// most of a page, and converting what nobody reads costs.
    var wantsText: Bool { get }
    func text(_ text: String)
    /// Whether the handler has all it wants: the parser stops reporting, and the page need not be read on.
    var isSatisfied: Bool { get }
}
