export { parseRobots, ROBOTS_MAX_BYTES } from './parse.ts';
export type { RobotsDirective, RobotsFile, RobotsGroup, RobotsRule } from './parse.ts';
export { crawlDelaySeconds, explainMatch, isAllowed, productToken, sitemaps } from './match.ts';
export type { MatchExplanation, MatchScope } from './match.ts';
export { robotsPolicy, robotsPolicyFromStatus } from './response-policy.ts';
export type { RobotsFetchOutcome, RobotsPolicy } from './response-policy.ts';
