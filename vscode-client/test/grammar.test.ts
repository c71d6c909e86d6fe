// Tokenizes with the real TextMate engine (vscode-textmate + oniguruma, as VS Code does). source.cpp is a stub
// whose nested block does not include our rules: AscendC names inside it prove the injection works.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const root = path.join(__dirname, '..', '..');

const STUB_CPP = {
    scopeName: 'source.cpp',
    patterns: [{ include: '#comment' }, { include: '#string' }, { include: '#block' }],
    repository: {
        comment: { name: 'comment.line.double-slash.cpp', begin: '//', end: '$' },
        string: { name: 'string.quoted.double.cpp', begin: '"', end: '"' },
        block: { name: 'meta.block.cpp', begin: '\\{', end: '\\}', patterns: [{ include: '#comment' }, { include: '#string' }, { include: '#block' }] },
    },
};

async function loadGrammar(): Promise<textmate.IGrammar> {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new textmate.Registry({
        onigLib: Promise.resolve({
            createOnigScanner: (sources: string[]) => new oniguruma.OnigScanner(sources),
            createOnigString: (s: string) => new oniguruma.OnigString(s),
        }),
        loadGrammar: async (scope: string) => {
            if (scope === 'source.cpp') {
                return textmate.parseRawGrammar(JSON.stringify(STUB_CPP), 'cpp.json');
            }
            if (scope === 'source.ascendc') {
                const file = path.join(root, 'syntaxes', 'ascendc.tmLanguage.json');
                return textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
            }
            return null;
        },
    });
    const grammar = await registry.loadGrammar('source.ascendc');
    assert.ok(grammar, 'the grammar loads');
    return grammar;
}

/** word -> the scopes of its token, for every token of the lines (tokenized in order, state carried). */
function scopesOf(grammar: textmate.IGrammar, lines: string[]): Map<string, string[][]> {
    const out = new Map<string, string[][]>();
    let state = textmate.INITIAL;
    for (const line of lines) {
        const r = grammar.tokenizeLine(line, state);
        for (const t of r.tokens) {
            const word = line.slice(t.startIndex, t.endIndex).trim();
            out.set(word, [...(out.get(word) ?? []), t.scopes]);
        }
        state = r.ruleStack;
    }
    return out;
}

function has(map: Map<string, string[][]>, word: string, scope: string): boolean {
    return (map.get(word) ?? []).some((scopes) => scopes.includes(scope));
}

const KERNEL = [
    'extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR tiling) {',
    '    TQue<QuePosition::VECIN, 2> inQueueX; TBuf<TPosition::VECCALC> tmp; LocalTensor<half> xLocal;',
    '    DataCopy(xLocal, xGm[0], 256); AscendC::Muls(y, x, 2, n); PipeBarrier<PIPE_ALL>();',
    '    SetFlag<HardEvent::MTE2_V>(id); uint32_t i = GetBlockIdx(); GET_TILING_DATA(t, tiling);',
    '    // DataCopy(a, b) in a comment',
    '    const char* s = "__aicore__ TPipe"; int Add = MyDataCopy(1);',
    '}',
];

test('AscendC qualifiers, types, positions and API calls get their scopes, inside nested C++ blocks too', async () => {
    const map = scopesOf(await loadGrammar(), KERNEL);
    for (const w of ['__global__', '__aicore__']) {
        assert.ok(has(map, w, 'storage.modifier.ascendc'), w);
    }
    for (const w of ['GM_ADDR', 'TQue', 'TBuf', 'LocalTensor']) {
        assert.ok(has(map, w, 'entity.name.type.ascendc'), w);
    }
    for (const w of ['QuePosition::VECIN', 'TPosition::VECCALC', 'PIPE_ALL', 'HardEvent::MTE2_V']) { // one token each
        assert.ok(has(map, w, 'variable.other.enummember.ascendc'), w);
    }
    for (const w of ['DataCopy', 'AscendC::Muls', 'PipeBarrier', 'SetFlag', 'GetBlockIdx']) {
        assert.ok(has(map, w, 'support.function.ascendc'), w);
    }
    assert.ok(has(map, 'GET_TILING_DATA', 'entity.name.function.preprocessor.ascendc'));
    // the TQue line is inside the stub's block: the injection reached it
    assert.ok((map.get('TQue') ?? [])[0].includes('meta.block.cpp'));
});

test('comments, strings, look-alike names and non-calls are left to C++', async () => {
    const map = scopesOf(await loadGrammar(), KERNEL);
    // any AscendC scope but the root one, which every token has
    const ours = (scopes: string[]) => scopes.some((x) => x !== 'source.ascendc' && x.endsWith('.ascendc'));
    const tokens = (part: string) => [...map.entries()].filter(([w]) => w.includes(part)).flatMap(([, s]) => s);
    for (const part of ['in a comment', 'TPipe', 'MyDataCopy', 'Add']) {
        const found = tokens(part);
        assert.ok(found.length > 0, `a token with ${part}`);
        assert.ok(found.every((s) => !ours(s)), `${part} is not AscendC-scoped: ${JSON.stringify(found)}`);
    }
});
