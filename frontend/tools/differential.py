#!/usr/bin/env python3
"""Differential test of ptxc's instruction table against NVIDIA's ptxas (a development tool,
not part of the test suite). Generates random instructions from the table, runs ptxas and
ptxc's checker on each, and prints every disagreement.

Usage (from the repository root, with NVIDIA's tools in $CUDA_ORACLE_BIN):
    cargo build --release -p ptxc-frontend --example parse_file
    python3 frontend/tools/differential.py [SEED] [COUNT]
"""
import concurrent.futures, os, random, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTXAS = os.path.join(os.environ["CUDA_ORACLE_BIN"], "ptxas")
CHECKER = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "examples", "parse_file")
WORK = tempfile.mkdtemp(prefix="ptxc-differential-")
TABLE = subprocess.run(["cargo", "run", "-q", "-p", "ptxc-frontend", "--example", "dump_table"],
                       cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 400
table = []
for line in TABLE:
    name, mods, types, mint, req, ops = line.rstrip('\n').split('|', 5)
    table.append(dict(name=name, mods=mods.split(), types=[t.split() for t in types.split(';')] if types else [], mint=int(mint), req=req.split(), ops=ops))
REGTYPES = ['pred','b16','b32','b64','u16','u32','u64','s16','s32','s64','f32','f64']
def reg_for(t):
    m = {'u8':'u16','s8':'s16','b8':'b16','f16':'b16','bf16':'b16','f16x2':'b32','bf16x2':'b32','tf32':'b32','b128':'b64'}
    t = m.get(t, t)
    return f'%{t}_{random.randrange(3)}'
def imm_for(t):
    if t == 'f32': return '0f3F800000'
    if t == 'f64': return '0d3FF0000000000000'
    if t == 'pred': return '1'
    return str(random.randrange(32))
def gen_inst():
    s = random.choice(table)
    if s['ops'] == 'call': return None
    types = []
    for i, allowed in enumerate(s['types']):
        if i < s['mint'] or random.random() < 0.3:
            types.append(random.choice(allowed))
    if random.random() < 0.05 and s['types']:
        types.append(random.choice(REGTYPES))
    mods = []
    for group in s['req']:
        opt = random.choice(group.split('|'))
        if opt.startswith('@'):
            cat = {'@cmp':['eq','ne','lt','le','gt','ge','lo','ls','hi','hs','equ','neu','ltu','leu','gtu','geu','num','nan'],
                   '@atom':['add','min','max','inc','dec','and','or','xor','exch','cas'],
                   '@space':['global','shared','local','const','param'],
                   '@shfl':['up','down','bfly','idx'], '@vote':['all','any','uni','ballot'],
                   '@mul':['lo','hi','wide'], '@scope':['cta','gl','gpu','sys']}[opt]
            opt = random.choice([c for c in cat if c in s['mods']] or cat)
        mods.append(opt)
    for _ in range(random.choice([0,0,1,1,2])):
        if s['mods']:
            m = random.choice(s['mods'])
            if m not in mods: mods.append(m)
    random.shuffle(mods)
    vec = next((int(m[1]) for m in mods if m in ('v2','v4')), None)
    T = types + [None]*3
    shapes = s['ops'].split('|') if s['ops'] else ['']
    shape = random.choice(shapes).split()
    wide = 'wide' in mods
    def resolve(code):
        if code in ('T','R'):
            t = T[0]
            if t and code == 'R' and wide:
                t = {'u16':'u32','s16':'s32','u32':'u64','s32':'s64'}.get(t, t)
            return t or 'b32'
        if code == 'U': return T[1] or 'b32'
        if code == 'V': return T[2] or 'b32'
        if code == '*': return 'u64'
        return code
    ops = []
    space = next((m for m in mods if m in ('global','shared','local','const','param')), None)
    for item in shape:
        kind, _, code = item.partition(':')
        t = resolve(code or '*')
        if kind in 'dD':
            if vec and s['name'] in ('ld','ldu','mov'):
                ops.append('{' + ', '.join(reg_for(t) for _ in range(vec)) + '}')
            elif s['name'] == 'ldmatrix':
                n = 4 if 'x4' in mods else 2 if 'x2' in mods else 1
                ops.append('{' + ', '.join(reg_for('b32') for _ in range(n)) + '}')
            elif kind == 'D' and random.random() < 0.3:
                ops.append(reg_for(t) + '|' + reg_for('pred'))
            else:
                ops.append(reg_for(t))
        elif kind in 'sm':
            if vec and s['name'] in ('st','mov'):
                ops.append('{' + ', '.join(reg_for(t) for _ in range(vec)) + '}')
            elif kind == 'm' and random.random() < 0.3:
                ops.append({'shared':'svar','const':'cvar','local':'lvar'}.get(space, 'gvar'))
            elif random.random() < 0.25:
                ops.append(imm_for(t))
            else:
                ops.append(reg_for(t))
        elif kind == 'n':
            ops.append(random.choice(['', '!']) + reg_for('pred'))
        elif kind == 'a':
            if space == 'shared': ops.append(random.choice(['[svar]', '[%u64_1]', '[%u32_1+4]']))
            elif space == 'const': ops.append('[cvar+4]')
            elif space == 'local': ops.append('[lvar]')
            elif space == 'param': ops.append('[p]')
            else: ops.append(random.choice(['[%u64_1]', '[%b64_2+8]', '[gvar]']))
        elif kind == 'l':
            ops.append('L0')
        elif kind == 'i':
            ops.append(str(random.randrange(256)))
    text = s['name'] + ''.join('.' + m for m in mods) + ''.join('.' + t for t in types)
    if ops: text += ' ' + ', '.join(ops)
    return text + ';'
HEAD = """.version 7.8
.target sm_75
.address_size 64
.global .align 8 .u32 gvar[4];
.const .align 8 .u32 cvar[4];
.shared .align 8 .u32 svar[4];
.visible .entry k(.param .u64 p)
{
.local .align 8 .u32 lvar[4];
""" + ''.join(f'.reg .{t} %{t}_<3>;\n' for t in REGTYPES)
i = 0
while i < N:
    inst = gen_inst()
    if not inst: continue
    open(f'{WORK}/c{i:04d}.ptx', 'w').write(HEAD + inst + '\nL0:\nret;\n}\n')
    i += 1

# ---- compare
files = sorted(os.listdir(WORK))
def ptxas(f):
    r = subprocess.run([PTXAS, '-arch=sm_75', os.path.join(WORK, f), '-o', os.devnull], capture_output=True, text=True)
    return f, r.returncode == 0, r.stderr.strip().split('\n')[0] if r.stderr else ''
with concurrent.futures.ThreadPoolExecutor(2) as ex:
    theirs = {f: (ok, err) for f, ok, err in ex.map(ptxas, files)}
ours = {}
for f in files:
    r = subprocess.run([CHECKER, os.path.join(WORK, f)], capture_output=True, text=True)
    msg = next((l for l in r.stderr.split('\n') if l.startswith('error')), '')
    ours[f] = (r.returncode == 0, msg)
dis = 0
for f in files:
    if theirs[f][0] != ours[f][0]:
        dis += 1
        inst = open(os.path.join(WORK, f)).read().split('\n')[-5]
        print(f"{'PTXAS-OK ' if theirs[f][0] else 'PTXAS-ERR'} ours={'ok ' if ours[f][0] else 'err'} | {inst}\n    ptxas: {theirs[f][1][:150]}\n    ours : {ours[f][1][:150]}")
acc = sum(1 for f in files if theirs[f][0])
print(f"{len(files)} cases, ptxas accepts {acc}, disagreements {dis}")
