"""The seed benchmark: Dense 256-relu, Dense 128-relu, Dense 2 on a (1, 512) input, 1000 forwards.

usage: python benchmarks/seed_mlp.py [--mxnet PYTHON] [--repeat N]
"""
from _harness import main

BUILD = """
net = nn.HybridSequential()
net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(2))
return net
"""

if __name__ == "__main__":
    main("seed MLP (512 -> 256 -> 128 -> 2)", BUILD, (512,))
