import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { shouldBeAscendc } from '../src/detect';

const KERNEL = '// z = x + y\n#include "kernel_operator.h"\nusing namespace AscendC;\n';

test('files inside op_kernel/ and op_host/ become ascendc', () => {
    assert.equal(shouldBeAscendc('/w/add/op_kernel/add_custom.cpp', 'cpp', ''), true);
    assert.equal(shouldBeAscendc('/w/add/op_host/add_custom_tiling.h', 'cpp', ''), true);
    assert.equal(shouldBeAscendc('/w/add/op_host/add_custom_tiling.h', 'c', ''), true);
    assert.equal(shouldBeAscendc('/w/add/op_host/sub/tiling.hpp', 'cpp', ''), true);
    assert.equal(shouldBeAscendc('C:\\w\\add\\op_kernel\\k.cc', 'cpp', ''), true);
});

test('a C++ file that includes kernel_operator.h becomes ascendc wherever it is', () => {
    assert.equal(shouldBeAscendc('/w/invocation/add.cpp', 'cpp', KERNEL), true);
    assert.equal(shouldBeAscendc('/w/k.cpp', 'cpp', '#include <kernel_operator.h>\n'), true);
    assert.equal(shouldBeAscendc('/w/k.cpp', 'cpp', '  #  include "lib/kernel_operator.h"\n'), true);
});

test('other C++ files are not hijacked', () => {
    assert.equal(shouldBeAscendc('/w/src/main.cpp', 'cpp', '#include <vector>\nint main() {}\n'), false);
    // a mention in a comment or a differently named header is not an include
    assert.equal(shouldBeAscendc('/w/src/a.cpp', 'cpp', '// see kernel_operator.h\n'), false);
    assert.equal(shouldBeAscendc('/w/src/a.cpp', 'cpp', '#include "my_kernel_operator.h"\n'), false);
    // the folder must be a parent folder, not the file name or a look-alike
    assert.equal(shouldBeAscendc('/w/src/op_kernel.cpp', 'cpp', ''), false);
    assert.equal(shouldBeAscendc('/w/my_op_kernel/a.cpp', 'cpp', ''), false);
});

test('non-C++ files and languages the user picked are left alone', () => {
    assert.equal(shouldBeAscendc('/w/add/op_kernel/build.py', 'python', ''), false);
    assert.equal(shouldBeAscendc('/w/add/op_kernel/notes.md', 'markdown', KERNEL), false);
    assert.equal(shouldBeAscendc('/w/add/op_kernel/add_custom.cpp', 'cuda-cpp', KERNEL), false);
    assert.equal(shouldBeAscendc('/w/add/op_kernel/add_custom.cpp', 'ascendc', KERNEL), false); // already is
    assert.equal(shouldBeAscendc('/w/add/op_kernel/CMakeLists.txt', 'cpp', ''), false);
});

test('only the head of the file is searched for the include', () => {
    const late = '\n'.repeat(20_000) + '#include "kernel_operator.h"\n';
    assert.equal(shouldBeAscendc('/w/k.cpp', 'cpp', late), false);
});
