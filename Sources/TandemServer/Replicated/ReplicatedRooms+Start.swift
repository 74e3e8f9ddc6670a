import TandemCore
import TandemRedis

/// Starting and stopping cluster mode.
extension ReplicatedRooms {
    /// The blocking connection of a cluster node's store, opened once at
    /// start: it seeds and reads the rooms, then serves the `Cluster`.
    ///
    /// With `--redis-sentinel` the Sentinels are asked for the primary first (each
    /// in turn, 1 s each) and the URL gets a Sentinel route: every connection goes
    /// to the primary they name and checks `ROLE` (`RedisSentinel` follows failovers
    /// once the loop runs). Otherwise the route is the URL's fixed host, so that the
    /// delivery probe can reconnect a connection.
    static func openClusterStore(_ settings: ClusterSettings) throws(ServerError) -> (url: RedisURL, store: RedisRoomStore) {
        var url: RedisURL
        if let sentinels = settings.redisSentinels, let master = settings.redisMaster {
            do {
                url = settings.redisURL.isEmpty ? RedisURL(host: "", port: 0) : try RedisURL(parsing: settings.redisURL, hostOptional: true)
            } catch {
                throw ServerError(description: "--redis: \(error)")
            }
            guard url.host.isEmpty else {
                throw ServerError(description: "--redis: \(ClusterSettings.sentinelURLProblem(settings.redisURL) ?? "no host with --redis-sentinel")")
            }
            let addresses: [RedisRoute.Address]
            switch RedisSentinel.parseAddresses(sentinels) {
            case let .success(parsed): addresses = parsed
            case let .failure(error): throw ServerError(description: "--redis-sentinel: \(error)")
            }
            url.route = RedisRoute(.sentinel(master: master, sentinels: addresses))
            do {
                try RedisSentinel.lookup(url.route!)
            } catch {
                throw ServerError(description: "--redis-sentinel \(sentinels): \(error)")
            }
        } else {
            do {
                url = try RedisURL(parsing: settings.redisURL)
            } catch {
                throw ServerError(description: "--redis: \(error)")
            }
            url.route = RedisRoute(.fixed(RedisRoute.Address(host: url.host, port: url.port)))
        }
        do {
            return (url, RedisRoomStore(redis: try RedisBlocking(url: url, timeout: 2)))
        } catch {
            throw ServerError(description: "--redis \(url): cannot reach Redis: \(error)")
        }
    }

    /// Saves the built-in rooms and the room files into Redis as SQLite
    /// storage does (room files on every start, so the stored schema follows
    /// the file; built-in rooms only when Redis has none under their id),
    /// then reads every room of the cluster: the configured ones first, in
    /// order, then the rest by id.
    static func seedCluster(_ store: RedisRoomStore, url: RedisURL, _ ordered: [(schema: RoomSchema, fromFile: Bool)],
                            changed: inout [String: Int]) throws(ServerError) -> [RedisRoomStore.Loaded] {
        do {
            for (schema, fromFile) in ordered {
                let before = try store.load(schema.id)
                guard fromFile || before == nil else { continue }
                if let before, before.stored.schema == schema { continue }
                if let before { changed[schema.id] = before.stored.revision }
                try store.save(schema)
            }
            let ids = try store.roomIDs()
            var loaded: [RedisRoomStore.Loaded] = []
            for id in ordered.map(\.schema.id) + ids.filter({ id in !ordered.contains { $0.schema.id == id } }) {
                guard !loaded.contains(where: { $0.stored.schema.id == id }), let room = try store.load(id) else { continue }
                loaded.append(room)
            }
            return loaded
        } catch {
            throw ServerError(description: "--redis \(url): \(error.reason) (\(error.operation))")
        }
    }

    /// At shutdown: owned rooms give their leases up at once (another node
    /// takes over without waiting for them to lapse), and the connections close.
    func stopCluster() {
        for replica in cluster.replicas.values where replica.owned {
            _ = try? cluster.store.redis.command([Array("EVAL".utf8), Array(ClusterScripts.release.source.utf8), Array("1".utf8),
                                                  Array(ClusterKeys.lease(replica.id).utf8), Array(replica.holder.utf8)])
        }
        stopClusterWatch() // DeliveryProbe.swift
        cluster.subscriber.stop()
        cluster.commands.stop()
    }
}
