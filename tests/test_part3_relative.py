"""Part III, page 1: T5's bucket edges and costs, checked against Hugging Face."""

import runpy
from pathlib import Path

import numpy as np
import pytest
import torch

from posenc_docs.lab import paper
from posenc_docs.pages import models, part3_relative

EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"
T5 = models.get("T5 v1.1 base")


@pytest.mark.parametrize("bidirectional", [True, False])
def test_bucket_edges_partition_the_distances_as_hugging_face_buckets_them(
    bidirectional,
):
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")  # here: 1.4 s
    reach = 2000
    edges = part3_relative.bucket_edges(bidirectional=bidirectional, reach=reach)
    hf = t5.T5Attention._relative_position_bucket(
        -torch.arange(reach + 1), bidirectional=bidirectional
    ).numpy()
    assert edges[0][1] == 0 and edges[-1][2] == reach
    for (_, _, far), (_, near, _) in zip(edges, edges[1:], strict=False):
        assert near == far + 1  # contiguous, no gaps
    for bucket, near, far in edges:
        assert np.all(hf[near : far + 1] == bucket)


def test_exact_buckets_and_where_the_last_bucket_starts():
    assert part3_relative.exact_buckets(bidirectional=True) == 8
    assert part3_relative.exact_buckets(bidirectional=False) == 16
    assert part3_relative.bucket_edges(bidirectional=True)[-1][:2] == (15, 91)
    assert part3_relative.bucket_edges(bidirectional=False)[-1][:2] == (31, 113)


def test_bucket_table_has_one_row_per_bucket():
    table = part3_relative.bucket_table(bidirectional=True)
    assert table.count("\n") == 2 + 16 - 1
    assert "| 15 | 91 and beyond | no limit |" in table  # not "up to 4,096"
    counts = [row.split("|")[3].strip() for row in table.splitlines()[2:-1]]
    assert sum(map(int, counts)) == 91  # distances 0..90, each in one bucket


def test_costs_from_the_t5_config():
    assert part3_relative.bias_entries(T5, 4096) == 12 * 4096 * 4096
    assert part3_relative.shaw_vectors(16) == 33


def test_speed_share_uses_the_quoted_alibi_table():
    speed = paper.TABLE1_TRAIN_WORDS_PER_SECOND
    share = part3_relative.speed_share(speed, "T5 bias", "sinusoidal")
    assert share == pytest.approx(14_400 / 28_500)


def test_example_prints_what_the_page_says(capsys):
    runpy.run_path(str(EXAMPLES / "part3_relative" / "buckets.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "bucket 15 holds every distance from 91 on" in out
    assert "bucket 31 holds every distance from 113 on" in out
    assert "learned numbers, both stacks: 768" in out
