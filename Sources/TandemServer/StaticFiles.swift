#if canImport(Glibc)
import Glibc
#endif

/// Resolves URL paths to files under the web root, never outside it.
struct StaticFiles {
    /// The web root as given.
    let root: String

    /// The file for `urlPath`, or `nil` when there is none or the path would
    /// leave the root (`..`, symlinks pointing out, NUL bytes).
    func file(for urlPath: String) -> String? {
        var path = urlPath
        if path.hasSuffix("/") { path += "index.html" }
        guard path.hasPrefix("/"), !path.utf8.contains(0),
              !path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        guard let base = Self.realPath(root), let full = Self.realPath(root + path) else { return nil }
        guard full.hasPrefix(base + "/") else { return nil }
        var info = stat()
        guard stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return full
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
