"""Parquet rows as `pd.read_parquet(...).iloc[i].to_dict()` hands them to verl.

pyarrow's `to_pandas` turns every list value — a top-level list column and a list inside a struct
alike — into a numpy object array, a struct into a dict (every field present, None for nulls) and
leaves strings, bools and ints as Python values. The rows come from DuckDB (read in Node, as JSON,
every struct field present), so only the lists need converting.
"""

import json

import numpy as np


def as_pandas(value):
    if isinstance(value, list):
        arr = np.empty(len(value), dtype=object)
        for i, v in enumerate(value):
            arr[i] = as_pandas(v)
        return arr
    if isinstance(value, dict):
        return {k: as_pandas(v) for k, v in value.items()}
    return value


class Frame:
    """The slice of a pandas DataFrame verl's SFT dataset touches: columns, len, iloc[i].to_dict(), a column's values."""

    def __init__(self, rows):
        self.rows = rows
        self.columns = list(rows[0].keys()) if rows else []

    def __len__(self):
        return len(self.rows)

    def column(self, key):
        return [as_pandas(r[key]) for r in self.rows]

    def row(self, i):
        return {k: as_pandas(v) for k, v in self.rows[i].items()}


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        return Frame(json.load(f))
