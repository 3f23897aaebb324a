"""LeNet on (N, 1, 28, 28): the runtime eager and hybridized, and real MXNet, in one run.

usage: python benchmarks/lenet.py [--mxnet PYTHON] [--repeat N]
"""
from _harness import main

BUILD = """
net = nn.HybridSequential()
net.add(nn.Conv2D(6, kernel_size=5, activation='relu'), nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5, activation='relu'), nn.MaxPool2D(pool_size=2, strides=2),
        nn.Flatten(), nn.Dense(120, activation='relu'), nn.Dense(84, activation='relu'), nn.Dense(10))
return net
"""

if __name__ == "__main__":
    main("LeNet", BUILD, (1, 28, 28))
