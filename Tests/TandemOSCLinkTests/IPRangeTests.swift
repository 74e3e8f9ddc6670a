import TandemOSCLink
import XCTest

final class IPRangeTests: XCTestCase {
    private func ip(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> IPAddress {
        guard let ip = IPAddress(text) else {
            XCTFail("not an address: \(text)", file: file, line: line)
            return IPAddress("0.0.0.0")!
        }
        return ip
    }

    func testAddresses() {
        XCTAssertEqual(ip("192.168.1.7").description, "192.168.1.7")
        XCTAssertEqual(ip("::1").description, "::1")
        XCTAssertEqual(ip("FD00:0:0::0001").description, "fd00::1")
        XCTAssertEqual(ip("::ffff:10.1.2.3"), ip("10.1.2.3"))
        XCTAssertEqual(ip("::ffff:10.1.2.3").description, "10.1.2.3")
        XCTAssertNotEqual(ip("::10.1.2.3"), ip("10.1.2.3"))  // v4-compatible is not v4-mapped
        XCTAssertTrue(ip("::ffff:10.1.2.3").isIPv4)
        XCTAssertFalse(ip("::1").isIPv4)
        for bad in ["", "localhost", "1.2.3", "1.2.3.256", "01.2.3.4x", "[::1]", "::1/128", " 1.2.3.4", "1::2::3", "::ffff:1.2.3"] {
            XCTAssertNil(IPAddress(bad), bad)
        }
    }

    func testLoopback() {
        XCTAssertTrue(ip("127.0.0.1").isLoopback)
        XCTAssertTrue(ip("127.255.0.9").isLoopback)
        XCTAssertTrue(ip("::1").isLoopback)
        XCTAssertTrue(ip("::ffff:127.0.0.1").isLoopback)
        XCTAssertFalse(ip("128.0.0.1").isLoopback)
        XCTAssertFalse(ip("::2").isLoopback)
        XCTAssertFalse(ip("::").isLoopback)
        XCTAssertTrue(IPRange.loopback.contains { $0.contains(ip("127.0.0.1")) })
        XCTAssertTrue(IPRange.loopback.contains { $0.contains(ip("::1")) })
        XCTAssertFalse(IPRange.loopback.contains { $0.contains(ip("10.0.0.1")) })
        XCTAssertEqual(IPRange.loopback.map(\.description), ["127.0.0.0/8", "::1/128"])
    }

    func testIPv4Ranges() throws {
        let tens = try XCTUnwrap(IPRange("10.0.0.0/8"))
        XCTAssertTrue(tens.contains(ip("10.255.1.2")))
        XCTAssertTrue(tens.contains(ip("::ffff:10.9.9.9")))
        XCTAssertFalse(tens.contains(ip("11.0.0.0")))
        XCTAssertFalse(tens.contains(ip("::a00:1")))  // not a mapped address
        let one = try XCTUnwrap(IPRange("192.168.1.7"))
        XCTAssertEqual(one.description, "192.168.1.7/32")
        XCTAssertTrue(one.contains(ip("192.168.1.7")))
        XCTAssertFalse(one.contains(ip("192.168.1.8")))
        let hostBits = try XCTUnwrap(IPRange("192.168.1.77/24"))
        XCTAssertEqual(hostBits.description, "192.168.1.0/24")
        XCTAssertTrue(hostBits.contains(ip("192.168.1.200")))
        XCTAssertFalse(hostBits.contains(ip("192.168.2.1")))
        let odd = try XCTUnwrap(IPRange("172.16.0.0/12"))
        XCTAssertTrue(odd.contains(ip("172.31.255.255")))
        XCTAssertFalse(odd.contains(ip("172.32.0.0")))
        let all = try XCTUnwrap(IPRange("0.0.0.0/0"))
        XCTAssertTrue(all.contains(ip("255.255.255.255")))
        XCTAssertTrue(all.contains(ip("1.2.3.4")))
        XCTAssertFalse(all.contains(ip("::1")))  // IPv4 ranges hold IPv4 senders only
    }

    func testIPv6Ranges() throws {
        let ula = try XCTUnwrap(IPRange("fd00::/8"))
        XCTAssertTrue(ula.contains(ip("fd12:3456::1")))
        XCTAssertFalse(ula.contains(ip("fe80::1")))
        XCTAssertFalse(ula.contains(ip("10.0.0.1")))
        let one = try XCTUnwrap(IPRange("::1/128"))
        XCTAssertTrue(one.contains(ip("::1")))
        XCTAssertFalse(one.contains(ip("::2")))
        let deep = try XCTUnwrap(IPRange("2001:db8:0:0:8000::/65"))
        XCTAssertTrue(deep.contains(ip("2001:db8::ffff:ffff:ffff:ffff")))
        XCTAssertFalse(deep.contains(ip("2001:db8::7fff:ffff:ffff:ffff")))
        XCTAssertEqual(IPRange("2001:db8::1/32")?.description, "2001:db8::/32")
        let all = try XCTUnwrap(IPRange("::/0"))
        XCTAssertTrue(all.contains(ip("2001:db8::1")))
        XCTAssertTrue(all.contains(ip("10.0.0.1")))  // every sender, IPv4 ones by their mapped form
        XCTAssertEqual(all.description, "::/0")
    }

    func testBadRanges() {
        for bad in ["", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "10.0.0.0/08x",
                    "::/129", "::1/1280", "10.0.0/8", "example.com/8", "::ffff:10.0.0.0/104", "::ffff:10.0.0.0", " 10.0.0.0/8"] {
            XCTAssertNil(IPRange(bad), bad)
        }
        XCTAssertEqual(IPRange("10.0.0.0/08")?.description, "10.0.0.0/8")
    }
}
