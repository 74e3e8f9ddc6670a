import TandemRedis
import XCTest

final class RedisURLTests: XCTestCase {
    func testGoodURLs() throws {
        XCTAssertEqual(try RedisURL(parsing: "redis://localhost"), RedisURL(host: "localhost", port: 6379, db: 0))
        XCTAssertEqual(try RedisURL(parsing: "redis://10.0.0.5:7000"), RedisURL(host: "10.0.0.5", port: 7000))
        XCTAssertEqual(try RedisURL(parsing: "redis://redis.internal:6380/2"),
                       RedisURL(host: "redis.internal", port: 6380, db: 2))
        XCTAssertEqual(try RedisURL(parsing: "redis://host/"), RedisURL(host: "host"))
        XCTAssertEqual(try RedisURL(parsing: "REDIS://:pa%3Ass%40w@cache:1/15"),
                       RedisURL(host: "cache", port: 1, db: 15, password: "pa:ss@w"))
        XCTAssertEqual(try RedisURL(parsing: "redis://:p@ss@cache"), RedisURL(host: "cache", password: "p@ss"))
        XCTAssertEqual(try RedisURL(parsing: "redis://[::1]:6390/1"), RedisURL(host: "::1", port: 6390, db: 1))
        XCTAssertEqual(try RedisURL(parsing: "redis://[::1]"), RedisURL(host: "::1"))
    }

    func testDescriptionHidesThePassword() throws {
        XCTAssertEqual(try RedisURL(parsing: "redis://:secret@cache:7000/3").description, "redis://:***@cache:7000/3")
        XCTAssertEqual(try RedisURL(parsing: "redis://[::1]").description, "redis://[::1]:6379/0")
    }

    func testBadURLsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("localhost:6379", "bad Redis URL scheme: 'localhost:6379' does not start with redis://"),
            ("http://localhost", "bad Redis URL scheme: 'http://' is not redis://"),
            ("rediss://localhost", "bad Redis URL scheme: rediss:// (TLS) is not supported, use redis://"),
            ("redis://", "bad Redis URL host: missing (redis://host[:port][/db])"),
            ("redis://:6379", "bad Redis URL host: missing (redis://host[:port][/db])"),
            ("redis://ho st", "bad Redis URL host: 'ho st' has a character a host name cannot have"),
            ("redis://[::1", "bad Redis URL host: '[::1' has no closing ']'"),
            ("redis://[nope]", "bad Redis URL host: '[nope]' is not an IPv6 address"),
            ("redis://host:", "bad Redis URL port: empty after ':'"),
            ("redis://host:port", "bad Redis URL port: 'port' is not a number from 1 to 65535"),
            ("redis://host:0", "bad Redis URL port: '0' is not a number from 1 to 65535"),
            ("redis://host:65536", "bad Redis URL port: '65536' is not a number from 1 to 65535"),
            ("redis://host/x", "bad Redis URL database: 'x' is not a database number (redis://host/0)"),
            ("redis://host/-1", "bad Redis URL database: '-1' is not a database number (redis://host/0)"),
            ("redis://host/1/2", "bad Redis URL database: '1/2' is not a database number (redis://host/0)"),
            ("redis://user:pw@host", "bad Redis URL user: user names are not supported ('user'), use redis://:password@host"),
            ("redis://pw@host", "bad Redis URL password: 'pw@' has no ':' before the password (redis://:password@host)"),
            ("redis://:@host", "bad Redis URL password: empty after ':'"),
            ("redis://:a%zz@host", "bad Redis URL password: a '%' not followed by two hex digits"),
            ("redis://host?timeout=1", "bad Redis URL: query or fragment '?timeout=1' is not supported"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try RedisURL(parsing: text), text) { error in
                XCTAssertEqual((error as? RedisURLError)?.description, message, text)
            }
        }
    }

    func testScriptSHA1() {
        XCTAssertEqual(RedisScript("").sha1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(RedisScript("abc").sha1, "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(RedisScript("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").sha1,
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(RedisScript(String(repeating: "a", count: 1000)).sha1,
                       "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }
}
