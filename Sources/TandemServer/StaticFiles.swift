#if canImport(Glibc)
import Glibc
#endif

/// A file of the web root, found by `StaticFiles`: its path and the validator
/// browsers send back in `If-None-Match`.
struct StaticFile: Sendable, Hashable {
    /// The resolved path, inside the web root.
    let path: String
    /// A strong ETag from the file's size and modification time (nanoseconds):
    /// a changed file gets a new one without reading it.
    let etag: String

    /// Whether an `If-None-Match` value names `etag` (`*`, or one of a list; weak forms too).
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { item in
            var tag = String(item).trimmingSpaces()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}

/// Resolves URL paths to files under the web root, never outside it.
struct StaticFiles {
    /// The web root as given.
    let root: String

    /// The file for `urlPath`, or `nil` when there is none, the path would
    /// leave the root (`..`, symlinks pointing out, NUL bytes) or names
    /// tooling, never the site (`isTooling`): dotfiles (`/.env`,
    /// `/.git/config`), the browser's unit tests (`/test/…`, `*.test.mjs`),
    /// `node_modules` and `package.json`.
    func file(for urlPath: String) -> StaticFile? {
        var path = urlPath
        if path.hasSuffix("/") { path += "index.html" }
        guard path.hasPrefix("/"), !path.utf8.contains(0), !Self.isTooling(path) else { return nil }
        guard let base = Self.realPath(root), let full = Self.realPath(root + path) else { return nil }
        guard full.hasPrefix(base + "/") else { return nil }
        // A symlink may lead to tooling inside the root: judge the resolved path too.
        guard !Self.isTooling(String(full.dropFirst(base.count))) else { return nil }
        var info = stat()
        guard stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return StaticFile(path: full, etag: "\"\(String(info.st_size, radix: 16))-\(String(modified, radix: 16))\"")
    }

    /// Whether a path inside the web root (`/a/b.js`) names what is not the
    /// site: a segment starting with `.`, a first segment `test` (web/test/,
    /// the browser's unit tests run by `node --test`), a `node_modules`
    /// segment, a `*.test.*` or `*.spec.*` file, or a `package.json`.
    static func isTooling(_ path: String) -> Bool {
        let segments = path.split(separator: "/")
        if segments.first == "test" { return true }
        if segments.contains(where: { $0.hasPrefix(".") || $0 == "node_modules" }) { return true }
        guard let name = segments.last?.lowercased() else { return false }
        return name == "package.json" || name.contains(".test.") || name.contains(".spec.")
    }

    /// The Content-Type for a file name, by its extension.
    static func contentType(for path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json", "map": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "ico": return "image/x-icon"
        case "webp": return "image/webp"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "txt", "md": return "text/plain; charset=utf-8"
        case "wasm": return "application/wasm"
        default: return "application/octet-stream"
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
