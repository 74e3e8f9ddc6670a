import Glibc
import TandemOSC
import TandemOSCLink
import XCTest

final class OSCSocketTests: XCTestCase {
    /// Waits up to `milliseconds` for the socket to be readable.
    private func readable(_ fd: Int32, milliseconds: Int32 = 30_000) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    func testLoopbackExchange() throws {
        let receiver = try OSCReceiver(address: "127.0.0.1", port: 0)
        XCTAssertGreaterThan(receiver.port, 0)
        XCTAssertNil(receiver.receive())  // nothing yet, and it does not block
        let target = try XCTUnwrap(OSCTarget(url: "udp://127.0.0.1:\(receiver.port)"))
        let sender = try XCTUnwrap(OSCSender(target))
        XCTAssertEqual(sender.target, target)
        let message = OSCMessage("/demo/gain", [.float(0.5), .int(3), .string("Ann"), .double(0.25)])
        XCTAssertTrue(sender.send(message))
        XCTAssertNil(sender.lastError)
        XCTAssertTrue(readable(receiver.fd))
        let datagram = try XCTUnwrap(receiver.receive())
        XCTAssertFalse(datagram.truncated)
        XCTAssertEqual(datagram.bytes, OSCPacket.encode(message))
        XCTAssertEqual(try OSCPacket.decode(datagram.bytes).get(), [message])
        XCTAssertEqual(datagram.source.ip, IPAddress("127.0.0.1"))
        XCTAssertTrue(datagram.source.ip.isLoopback)
        XCTAssertNotEqual(datagram.source.port, 0)
        XCTAssertEqual(datagram.source.description, "127.0.0.1:\(datagram.source.port)")
        XCTAssertNil(receiver.receive())
    }

    func testIPv6LoopbackExchange() throws {
        let receiver: OSCReceiver
        do {
            receiver = try OSCReceiver(address: "::1", port: 0)
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        let sender = try XCTUnwrap(OSCSender(XCTUnwrap(OSCTarget(url: "osc.udp://[::1]:\(receiver.port)/"))))
        XCTAssertTrue(sender.send(OSCMessage("/x/bang")), sender.lastError ?? "")
        XCTAssertTrue(readable(receiver.fd))
        let datagram = try XCTUnwrap(receiver.receive())
        XCTAssertEqual(try OSCPacket.decode(datagram.bytes).get(), [OSCMessage("/x/bang")])
        XCTAssertEqual(datagram.source.description, "[::1]:\(datagram.source.port)")
    }

    func testSeveralDatagramsInOrder() throws {
        let receiver = try OSCReceiver(address: "127.0.0.1", port: 0)
        let sender = try XCTUnwrap(OSCSender(XCTUnwrap(OSCTarget(url: "udp://127.0.0.1:\(receiver.port)"))))
        for k in 0..<5 { XCTAssertTrue(sender.send(OSCMessage("/n", [.int(Int32(k))]))) }
        var got: [OSCMessage] = []
        while got.count < 5, readable(receiver.fd) {
            while let datagram = receiver.receive() { got += try OSCPacket.decode(datagram.bytes).get() }
        }
        XCTAssertEqual(got, (0..<5).map { OSCMessage("/n", [.int(Int32($0))]) })
    }

    /// A flood past the receive buffer: the kernel's drops are told with the next datagram read.
    func testKernelDropsAreCounted() throws {
        let receiver = try OSCReceiver(address: "127.0.0.1", port: 0)
        var small: Int32 = 4096 // the kernel doubles it, and keeps at least ~2 KiB
        XCTAssertEqual(setsockopt(receiver.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size)), 0)
        let sender = try XCTUnwrap(OSCSender(try XCTUnwrap(OSCTarget(url: "udp://127.0.0.1:\(receiver.port)"))))
        let sent = 300
        for i in 0..<sent { XCTAssertTrue(sender.send(OSCMessage("/demo/gain", [.int(Int32(i))]))) }
        XCTAssertEqual(receiver.kernelDrops, 0) // nothing read yet
        var read = 0
        // Loopback queues a datagram inside sendto: everything that was kept is readable now.
        while readable(receiver.fd, milliseconds: 200), receiver.receive() != nil { read += 1 }
        XCTAssertGreaterThan(read, 0)
        XCTAssertLessThan(read, sent)
        // The count comes with the first datagram queued after the drops.
        XCTAssertTrue(sender.send(OSCMessage("/demo/gain", [.int(-1)])))
        XCTAssertTrue(readable(receiver.fd))
        let after = try XCTUnwrap(receiver.receive())
        XCTAssertEqual(try OSCPacket.decode(after.bytes).get(), [OSCMessage("/demo/gain", [.int(-1)])])
        XCTAssertEqual(read + Int(receiver.kernelDrops), sent)
    }

    func testAddressInUse() throws {
        let first = try OSCReceiver(address: "127.0.0.1", port: 0)
        XCTAssertThrowsError(try OSCReceiver(address: "127.0.0.1", port: first.port)) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.hasPrefix("cannot listen for OSC on 127.0.0.1:\(first.port): the port is in use"), text)
        }
    }

    func testNotAnAddressOfThisMachine() {
        XCTAssertThrowsError(try OSCReceiver(address: "192.0.2.1", port: 0)) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("cannot listen for OSC on 192.0.2.1:0: not an address of this machine"), "\(error)")
        }
    }

    func testNamesAreRefused() {
        XCTAssertThrowsError(try OSCReceiver(address: "localhost", port: 9000)) { error in
            XCTAssertEqual(String(describing: error), "cannot listen for OSC on localhost:9000: 'localhost' is not an IPv4 or IPv6 address")
        }
        XCTAssertThrowsError(try OSCReceiver(address: "127.0.0.1", port: 70000))
    }

    func testCloseIsIdempotentAndNonBlockingCloseOnExec() throws {
        let receiver = try OSCReceiver(address: "127.0.0.1", port: 0)
        let flags = fcntl(receiver.fd, F_GETFL)
        XCTAssertNotEqual(flags & O_NONBLOCK, 0)
        XCTAssertNotEqual(fcntl(receiver.fd, F_GETFD) & FD_CLOEXEC, 0)
        receiver.close()
        XCTAssertEqual(receiver.fd, -1)
        receiver.close()
        XCTAssertNil(receiver.receive())
        // The port is free again.
        XCTAssertNoThrow(try OSCReceiver(address: "127.0.0.1", port: receiver.port))
    }

    func testSendFailureIsReported() throws {
        // A datagram larger than UDP allows: liblo reports the error, nothing crashes.
        let sender = try XCTUnwrap(OSCSender(XCTUnwrap(OSCTarget(url: "udp://127.0.0.1:9"))))
        let huge = OSCMessage("/big", [.string(String(repeating: "x", count: 70_000))])
        XCTAssertFalse(sender.send(huge))
        XCTAssertNotNil(sender.lastError)
        XCTAssertTrue(sender.send(OSCMessage("/small")))
        XCTAssertNil(sender.lastError)
    }
}
