import ImgviewSupport

/// Which key does which action: the standard keys, with a config file's `[keys]` table over them.
///
/// The help panel and the status line's hints show the keys from here, so they always say what
/// the keys do. Esc, Ctrl-C and Ctrl-Z cannot be bound: Esc always closes a panel or a prompt
/// (else quits), Ctrl-C always quits, Ctrl-Z always suspends.
public struct Keymap: Sendable, Equatable {
    /// One line of a `[keys]` table: an action's name and the names of its keys.
    public struct Binding: Sendable, Equatable {
        public var action: String
        public var keys: [String]
        /// Where it was written, for messages.
        public var line: Int?

        public init(action: String, keys: [String], line: Int? = nil) {
            self.action = action
            self.keys = keys
            self.line = line
        }
    }

    /// Why a `[keys]` table cannot be used; `line` is the binding's.
    public struct Problem: Error, Sendable, Equatable {
        public var line: Int?
        public var message: String
    }

    /// Keys that mean the same everywhere and cannot be bound.
    public static let fixedKeys: [BrowserKey] = [.escape, .interrupt, .suspend]

    public static let standard = Keymap(
        keys: Dictionary(uniqueKeysWithValues: BrowserAction.allCases.map { ($0, $0.standardKeys) }))

    /// Every action's keys, in the order they were given.
    private var keysByAction: [BrowserAction: [BrowserKey]]
    private var actionsByKey: [BrowserKey: BrowserAction]

    private init(keys: [BrowserAction: [BrowserKey]]) {
        keysByAction = keys
        actionsByKey = [:]
        for (action, keys) in keys {
            for key in keys { actionsByKey[key] = action }
        }
    }

    /// This keymap with `bindings` applied: each action named gets exactly the keys listed (none
    /// for an empty list), and a key taken for one is no longer any other action's.
    public func applying(_ bindings: [Binding]) throws(Problem) -> Keymap {
        var keys = keysByAction
        var claimed: [BrowserKey: Binding] = [:]
        for binding in bindings {
            guard let action = BrowserAction(rawValue: binding.action) else {
                let guess = NearestName.to(binding.action, among: BrowserAction.allCases.map(\.rawValue))
                throw Problem(
                    line: binding.line, message: "unknown action \"\(binding.action)\"" + (guess.map { " (did you mean \"\($0)\"?)" } ?? "")
                )
            }
            var parsed: [BrowserKey] = []
            for name in binding.keys {
                guard let key = BrowserKey(name: name) else {
                    throw Problem(
                        line: binding.line,
                        message: "\(action.rawValue): \"\(name)\" is not a key (a character, C-x, Left, PageUp, F5, Space…)")
                }
                if Self.fixedKeys.contains(key) {
                    throw Problem(line: binding.line, message: "\(action.rawValue): \(key.name) cannot be bound (it always means the same)")
                }
                if let earlier = claimed[key], earlier.action != binding.action {
                    let place = earlier.line.map { " on line \($0)" } ?? ""
                    throw Problem(
                        line: binding.line,
                        message: "\(key.name) is bound to both \(earlier.action)\(place) and \(binding.action)")
                }
                claimed[key] = binding
                if !parsed.contains(key) { parsed.append(key) }
            }
            keys[action] = parsed
        }
        // A key the file gave to one action leaves the action that had it by default.
        for (key, binding) in claimed {
            for action in BrowserAction.allCases where action.rawValue != binding.action {
                keys[action]?.removeAll { $0 == key }
            }
        }
        return Keymap(keys: keys)
    }

    /// The action `key` is bound to, if any.
    public func action(for key: BrowserKey) -> BrowserAction? {
        actionsByKey[key]
    }

    /// The keys bound to `action`, the first being the one the status line shows.
    public func keys(for action: BrowserAction) -> [BrowserKey] {
        keysByAction[action] ?? []
    }

    /// The command `key` means outside panels and prompts; nil for keys that mean nothing.
    ///
    /// ↑ ↓ move in a panel, Esc closes it (or quits), Ctrl-C quits; a digit no action has goes to that tab.
    public func command(for key: BrowserKey) -> BrowserCommand? {
        if let action = actionsByKey[key] { return action.command }
        switch key {
        case .escape: return .dismiss
        case .interrupt: return .quit
        case .up: return .lineUp
        case .down: return .lineDown
        case .character(let character):
            guard let digit = character.wholeNumberValue, (1...9).contains(digit), character.isASCII else { return nil }
            return .jump(digit - 1)
        default: return nil
        }
    }

    /// The keys of `action` as the help panel shows them: `← h S-Tab`; empty when it has none.
    public func label(for action: BrowserAction) -> String {
        keys(for: action).map(\.label).joined(separator: " ")
    }
}
