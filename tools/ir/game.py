"""Play one game after loading, for tools/ir/irg.sh: SEED ROUNDS [REF] [AGENT] (default a
heuristic aar/house-rules@1 game); run from the repository's root."""
import sys

sys.path.insert(0, "benchmarks")
from play import play  # noqa: E402 (benchmarks/play.py, found through the path above)
from ruleslang.compare.runner import LoadedOnce  # noqa: E402

seed, rounds = int(sys.argv[1]), int(sys.argv[2])
ref = sys.argv[3] if len(sys.argv) > 3 else "aar/house-rules@1"
agent = sys.argv[4] if len(sys.argv) > 4 else "heuristic"
play(LoadedOnce([]), [ref], seed, rounds, agent)
