"""The bounded memos the check keeps (hyblint.recent): the newest `size` entries stay, a recalled
entry becomes the newest, plain reads leave the order alone."""
from hyblint.recent import Recent


def test_keeping_past_the_size_drops_the_oldest():
    memo = Recent(3)
    for key in "abcd":
        memo.keep(key, key.upper())
    assert list(memo) == ["b", "c", "d"]


def test_a_recalled_entry_becomes_the_newest_and_outlives_the_others():
    memo = Recent(3)
    for key in "abc":
        memo.keep(key, key.upper())
    assert memo.recall("a") == "A"
    memo.keep("d", "D")
    assert list(memo) == ["c", "a", "d"]


def test_plain_reads_leave_the_order():
    memo = Recent(2)
    memo.keep("a", 1)
    memo.keep("b", 2)
    assert memo.get("a") == 1 and memo["a"] == 1 and "a" in memo
    memo.keep("c", 3)
    assert list(memo) == ["b", "c"]


def test_recall_tells_a_missing_entry_from_a_stored_false_or_none():
    memo = Recent(4)
    memo.keep("none", None)
    memo.keep("false", False)
    assert memo.recall("missing", "default") == "default"
    assert memo.recall("none", "default") is None
    assert memo.recall("false", "default") is False


def test_keep_returns_the_value_and_replaces_an_entry_in_place():
    memo = Recent(3)
    assert memo.keep("a", 1) == 1
    memo.keep("b", 2)
    memo.keep("a", 10)
    assert list(memo.items()) == [("a", 10), ("b", 2)]
