"""The garbage collector's graph alone: which changes queue which uids, and what it keeps."""

from __future__ import annotations

from typing import Any

from orch_apiserver.controllers.gc_graph import Graph, Node, OwnerRef

CONFIGMAP: Any = object()  # the graph only carries the kind for the collector


def ref(owner: str, blocks: bool = False) -> OwnerRef:
    return OwnerRef("", "ConfigMap", owner, owner, blocks)


def node(uid: str, *owners: OwnerRef, rv: int = 1, finalizers: tuple[str, ...] = (), deleting: bool = False) -> Node:
    return Node(uid, CONFIGMAP, "default", uid, owners, deleting, finalizers, rv)


def test_a_built_graph_keeps_owners_dependents_and_deletions_only_and_queues_what_was_pending() -> None:
    listed = [
        node("owner"),
        node("child", ref("owner")),
        node("loner"),
        node("stray", ref("never-listed")),
        node("leaving", deleting=True, finalizers=("foregroundDeletion",)),
        node("held", ref("leaving", blocks=True)),
    ]
    graph, work = Graph.build(listed)
    assert set(graph.nodes) == {"owner", "child", "stray", "leaving", "held"}  # the loner matters to nobody
    assert work.attempt == {"stray", "leaving", "held"} and not work.orphan


def test_an_owner_s_deletion_queues_its_dependents_and_remembers_it_absent() -> None:
    graph, _ = Graph.build([node("owner"), node("a", ref("owner")), node("b", ref("owner"))])
    work = graph.remove("owner", ())
    assert work.attempt == {"a", "b"} and graph.is_absent("owner")
    assert not graph.remove("loner", ()).attempt and not graph.is_absent("loner")  # nobody named it


def test_a_new_dependent_of_an_unseen_owner_is_looked_at_one_of_a_seen_owner_is_not() -> None:
    graph, _ = Graph.build([node("owner"), node("child", ref("owner"))])
    assert not graph.observe(node("sibling", ref("owner"))).attempt
    assert graph.observe(node("newcomer", ref("unseen"))).attempt == {"newcomer"}


def test_foreground_and_orphan_deletions_queue_on_their_transition_only() -> None:
    graph, _ = Graph.build([node("owner"), node("child", ref("owner", blocks=True))])
    waiting = node("owner", rv=2, deleting=True, finalizers=("foregroundDeletion",))
    assert graph.observe(waiting).attempt == {"owner", "child"}
    again = node("owner", rv=3, deleting=True, finalizers=("foregroundDeletion", "x"))
    assert not graph.observe(again)
    assert [n.uid for n in graph.blocking_dependents("owner")] == ["child"]
    assert graph.remove("child", ()).attempt == {"owner"}  # one blocking dependent fewer: the owner looks again
    assert graph.blocking_dependents("owner") == []

    graph, _ = Graph.build([node("o2"), node("c2", ref("o2"))])
    assert graph.observe(node("o2", rv=2, deleting=True, finalizers=("orphan",))).orphan == {"o2"}


def test_a_change_older_than_the_list_is_ignored_and_released_nodes_are_dropped() -> None:
    graph, _ = Graph.build([node("owner", rv=5), node("child", ref("owner"), rv=5)])
    assert not graph.observe(node("child", rv=4))  # a list overtook this change
    assert graph.nodes["child"].owners == (ref("owner"),)
    graph.observe(node("child", rv=6))  # released: neither owner nor dependent any more
    assert graph.nodes == {} and graph.dependents == {}
