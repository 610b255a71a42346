/**
 * LangGraph.js with `PostgresSaver`, the peer of `dualloop (postgresStore)`. The system itself is
 * in bench/peers/langgraph-postgres/ (its own package and install, like the SQLite peer, ADR 0124);
 * run.mjs installs it on demand and, when that fails, reports it pending. Runs on the server
 * run.mjs starts (`BENCH_DATABASE_URL` in the child's environment).
 */
import { peerSystem } from '../lib/peer-system.mjs';

export const meta = { label: 'LangGraph.js (createReactAgent + PostgresSaver, durable)', packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-postgres'], peer: 'langgraph-postgres' };

export const { pendingReason, createSystem } = peerSystem('langgraph-postgres', 'node_modules/@langchain/langgraph-checkpoint-postgres/');
