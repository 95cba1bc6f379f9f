#!/usr/bin/env python3
"""bench/fca_sparse_retail.py — a retail-like transaction context (FIMI .dat) for the sparse fca benchmark.

Shaped after the FIMI repository's retail.dat (88,162 baskets of 16,470 products, 10.3 items a basket
on average), which parac does not ship: item popularity follows Zipf's law over a shuffled item order
(a few products in many baskets, most in a handful), basket sizes 1 + Poisson(mean - 1) (--lengths
geometric: many small baskets and a long tail, whose long baskets multiply the concepts: with the
defaults neither parac nor LCM finished in 5 minutes on a 2-core machine). Reproducible from --seed on every machine (numpy's PCG64).

    python3 bench/fca_sparse_retail.py -o retail_like.dat [--objects 88162] [--attributes 16470]
        [--mean-length 10.3] [--zipf 1.1] [--seed 1] [--lengths poisson|geometric]
"""
import argparse
import sys

import numpy as np


def generate(objects, attributes, mean_length, zipf, seed, lengths_law):
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, attributes + 1) ** zipf
    popularity = np.empty(attributes)
    popularity[rng.permutation(attributes)] = weights / weights.sum()
    if lengths_law == "geometric":
        lengths = rng.geometric(1.0 / mean_length, size=objects)
    else:
        lengths = 1 + rng.poisson(mean_length - 1.0, size=objects)
    lengths = np.minimum(lengths, attributes)
    # draw with replacement, generously, and keep each basket's first distinct items
    draws = rng.choice(attributes, size=int(lengths.sum() * 2) + 64, p=popularity)
    position = 0
    for length in lengths:
        basket = []
        seen = set()
        while len(basket) < length:
            if position == len(draws):
                draws = rng.choice(attributes, size=4096, p=popularity)
                position = 0
            item = int(draws[position])
            position += 1
            if item not in seen:
                seen.add(item)
                basket.append(item)
        yield sorted(basket)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--objects", type=int, default=88162)
    parser.add_argument("--attributes", type=int, default=16470)
    parser.add_argument("--mean-length", type=float, default=10.3)
    parser.add_argument("--zipf", type=float, default=1.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lengths", choices=("poisson", "geometric"), default="poisson",
                        help="basket sizes: 1 + Poisson (default) or geometric (a long tail: far more concepts)")
    args = parser.parse_args()
    if args.objects < 1 or args.attributes < 1 or args.mean_length < 1:
        sys.exit("fca_sparse_retail.py: --objects, --attributes and --mean-length must be >= 1")
    with open(args.output, "w") as out:
        for basket in generate(args.objects, args.attributes, args.mean_length, args.zipf, args.seed, args.lengths):
            out.write(" ".join(map(str, basket)) + "\n")


if __name__ == "__main__":
    main()
