#!/usr/bin/env bash
# Run on the device with carry [".whl/devbin"] holding ruff and graphbreak-<build> binaries (D below); PIN="taskset -c 0,1" for a 2-core figure.
# Interleaved timing on the idle device host: ruff vs graphbreak builds on the installed transformers + timm.
D=${D:-.whl/devbin}; SP=$(python -c "import transformers,os;print(os.path.dirname(os.path.dirname(transformers.__file__)))")
W=/tmp/trees; mkdir -p $W; cp -r $SP/transformers $SP/timm $W/; T1=$W/transformers; T2=$W/timm
python -c "import transformers,timm;print('transformers',transformers.__version__,'timm',timm.__version__)"; nproc
PIN=${PIN:-}; N=${N:-7}; out=$OUT/speed.tsv; : > $out
for r in $(seq $N); do
  for b in ruff ${BUILDS:-39e535c 62be3e6}; do
    if [ $b = ruff ]; then cmd=($PIN $D/ruff check --no-cache --isolated --exit-zero --quiet $T1 $T2)
    else cmd=($PIN $D/graphbreak-$b scan $T1 $T2 --exit-zero --quiet --no-config); fi
    /usr/bin/time -f "$b\t%e\t%U\t%S\t%M" -a -o $out "${cmd[@]}" >/dev/null 2>&1
  done
done
for b in ${BUILDS:-39e535c 62be3e6}; do RAYON_NUM_THREADS=2 /usr/bin/time -f "$b-2t\t%e\t%U\t%S\t%M" -a -o $out $D/graphbreak-$b scan $T1 $T2 --exit-zero --quiet --no-config >/dev/null 2>&1; done
python3 - "$out" <<'PY'
import statistics as st, collections, sys
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    if '\t' not in line: continue
    b,e,u,s,m=line.strip().split('\t'); d[b].append((float(e),float(u),float(s),int(m)))
ruff=st.median(x[0] for x in d['ruff'])
for b,v in d.items():
    e=st.median(x[0] for x in v)
    print(f"{b}\tn={len(v)}\twall {e:.3f}s\t{e/ruff:.2f}x ruff\tuser {st.median(x[1] for x in v):.2f}\tsys {st.median(x[2] for x in v):.2f}\tRSS {st.median(x[3] for x in v)/1024:.0f} MB\tall {[x[0] for x in v]}")
PY
