/// An animated image's preview: every frame rendered for the same box and mode, with its delay,
/// and how many times the whole plays. What `show` and the browser play.
public struct RenderedAnimation: Sendable, Equatable {
    /// In display order; at least two. The first is the preview's own `grid` and `graphics`.
    public var frames: [RenderedFrame]
    /// How many times the frames play; 0 means forever.
    public var loopCount: Int

    public init(frames: [RenderedFrame], loopCount: Int) {
        precondition(frames.count > 1, "an animation has more than one frame")
        self.frames = frames
        self.loopCount = loopCount
    }

    /// When each frame shows.
    public var timeline: AnimationTimeline {
        AnimationTimeline(delays: frames.map(\.delay), loopCount: loopCount)
    }

    /// Bytes held besides the first frame (the preview counts that one).
    var cost: Int {
        frames.dropFirst().reduce(0) { total, frame in
            // A pixel preview's blank grid is one array shared by every frame.
            total + (frame.graphics.map(\.bytes.count) ?? RenderedFrame.cost(grid: frame.grid, graphics: nil))
        }
    }
}

/// One frame of an animation's preview: its cells or encoded pixels, and how long it shows.
public struct RenderedFrame: Sendable, Equatable {
    public var grid: CellGrid
    public var graphics: GraphicsPreview?
    public var delay: Duration

    public init(grid: CellGrid, graphics: GraphicsPreview? = nil, delay: Duration) {
        self.grid = grid
        self.graphics = graphics
        self.delay = delay
    }

    /// Roughly the bytes a frame's cells and encoded pixels take.
    static func cost(grid: CellGrid, graphics: GraphicsPreview?) -> Int {
        grid.cells.count * MemoryLayout<Cell>.stride + (graphics?.bytes.count ?? 0)
    }
}
