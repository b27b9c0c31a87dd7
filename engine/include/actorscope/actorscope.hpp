// Actorscope: everything a program needs to define, spawn and talk to actors.
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/actor_cell.hpp>
#include <actorscope/actor_id.hpp>
#include <actorscope/actor_ref.hpp>
#include <actorscope/actor_stats.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/interval.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/join_set.hpp>
#include <actorscope/manual_runtime.hpp>
#include <actorscope/observe/event_collector.hpp>
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/output_port.hpp>
#include <actorscope/process_groups.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/rpc.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/sleep.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/system.hpp>
#include <actorscope/task.hpp>
#include <actorscope/timer.hpp>
