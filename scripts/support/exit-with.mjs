/**
 * Ends a check script with its exit code (0 passed, 1 failed); an unexpected error is printed
 * under the check's name and fails the run.
 */
export function exitWith(name, run) {
  run()
    .then((code) => process.exit(code))
    .catch((error) => {
      console.error(`${name}: ERROR ${error instanceof Error ? error.stack : error}`);
      process.exit(1);
    });
}
