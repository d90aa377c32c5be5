/** What the stand-in for stats answers to every request (a small `GET /seasons` answer). */
export const CONSTANT_ANSWER = JSON.stringify({
  currentSeason: "S1",
  seasons: [
    {
      season: "S1",
      startsAt: "2026-01-01T00:00:00.000Z",
      endsAt: null,
      isCurrentSeason: true,
      ratingCarryOver: null,
    },
  ],
});
