"""Stale status as the webserver computes it (the resolver behind the UI's "Stale" badges)."""

from __future__ import annotations

import dagster as dg


def stale_statuses(
    instance: dg.DagsterInstance, defs: dg.Definitions
) -> dict[str, tuple[str, list[str]]]:
    """asset -> (FRESH | STALE | MISSING, the keys of its root causes)."""
    from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
    from dagster._core.definitions.data_version import CachingStaleStatusResolver
    from dagster._time import get_current_datetime

    graph = defs.resolve_asset_graph()
    view = AssetGraphView(
        temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
        instance=instance,
        asset_graph=graph,
    )
    resolver = CachingStaleStatusResolver(instance, graph, view)
    return {
        k.to_user_string(): (
            resolver.get_status(k).value,
            sorted({c.asset_key.to_user_string() for c in resolver.get_stale_root_causes(k)}),
        )
        for k in graph.get_all_asset_keys()
    }
