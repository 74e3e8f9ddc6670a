import Testing
import TandemCore
@testable import TandemServer

/// Read-your-writes for presets in a cluster: a change is answered once Redis
/// replied and this node heard the change's own delta, in whichever order
/// the two connections bring them.
@Suite("Preset echoes")
struct PresetEchoesTests {
    let t0 = Moment.seconds(100)
    let save = Array("preset demo\nsave\nWarm\n{}".utf8)

    final class Answers {
        var log: [String] = []
        func answer(_ name: String) -> () -> Void { { self.log.append(name) } }
    }

    @Test("the reply before the delta: the answer waits for the delta")
    func replyFirst() {
        var echoes = PresetEchoes()
        let answers = Answers()
        let token = echoes.expect(save, at: t0)
        #expect(echoes.replied(token, at: t0, answers.answer("save")) == nil)
        #expect(answers.log.isEmpty)
        echoes.heard(save)?()
        #expect(answers.log == ["save"])
        #expect(echoes.count == 0)
    }

    @Test("the delta before the reply: the reply answers at once")
    func deltaFirst() {
        var echoes = PresetEchoes()
        let answers = Answers()
        let token = echoes.expect(save, at: t0)
        #expect(echoes.heard(save) == nil)
        echoes.replied(token, at: t0, answers.answer("save"))?()
        #expect(answers.log == ["save"])
        #expect(echoes.count == 0)
    }

    @Test("a delta ends the oldest change it matches; another node's delta ends none")
    func matching() {
        var echoes = PresetEchoes()
        let answers = Answers()
        let first = echoes.expect(save, at: t0)
        let second = echoes.expect(save, at: t0)
        let delete = echoes.expect(Array("preset demo\ndelete\nWarm".utf8), at: t0)
        #expect(echoes.replied(second, at: t0, answers.answer("second")) == nil)
        #expect(echoes.replied(first, at: t0, answers.answer("first")) == nil)
        #expect(echoes.replied(delete, at: t0, answers.answer("delete")) == nil)
        #expect(echoes.heard(Array("preset demo\ndelete\nWarmer".utf8)) == nil, "a delete of another name")
        #expect(echoes.heard(Array("preset other\nsave\nWarm\n{}".utf8)) == nil, "another room")
        echoes.heard(save)?()
        echoes.heard(save)?()
        #expect(answers.log == ["first", "second"])
        echoes.heard(Array("preset demo\ndelete\nWarm".utf8))?()
        #expect(answers.log == ["first", "second", "delete"])
    }

    @Test("a rename's delta carries the value it moved after the expected start")
    func renamePrefix() {
        var echoes = PresetEchoes()
        let answers = Answers()
        let token = echoes.expect(Array("preset demo\nmove\nWarm\nCold\n".utf8), prefix: true, at: t0)
        #expect(echoes.replied(token, at: t0, answers.answer("rename")) == nil)
        #expect(echoes.heard(Array("preset demo\nmove\nWarm\nColder\n{}".utf8)) == nil)
        echoes.heard(Array("preset demo\nmove\nWarm\nCold\n{\"states\":{}}".utf8))?()
        #expect(answers.log == ["rename"])
    }

    @Test("without its delta an answer goes `patience` after the reply; a cancelled change waits for nothing")
    func overdueAndCancelled() {
        var echoes = PresetEchoes()
        let answers = Answers()
        let token = echoes.expect(save, at: t0)
        let refused = echoes.expect(Array("preset demo\nsave\nFull\n{}".utf8), at: t0)
        echoes.cancel(refused)
        #expect(echoes.replied(token, at: t0, answers.answer("save")) == nil)
        #expect(echoes.overdue(at: .seconds(100 + PresetEchoes.patience - 0.1)).isEmpty)
        for answer in echoes.overdue(at: .seconds(100 + PresetEchoes.patience)) { answer() }
        #expect(answers.log == ["save"])
        #expect(echoes.count == 0)
        #expect(echoes.heard(save) == nil, "a late delta answers nothing twice")
    }

    @Test("a change whose script never answered is forgotten after `forgetAfter`")
    func forgotten() {
        var echoes = PresetEchoes()
        _ = echoes.expect(save, at: t0)
        #expect(echoes.overdue(at: .seconds(100 + PresetEchoes.forgetAfter - 1)).isEmpty && echoes.count == 1)
        #expect(echoes.overdue(at: .seconds(100 + PresetEchoes.forgetAfter)).isEmpty && echoes.count == 0)
    }
}
