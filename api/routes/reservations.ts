// Reservations: buy (account key), edit, list (past ones included), one, and `me` (reservation key).
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  ReservationCreateSchema,
  ReservationCreatedSchema,
  ReservationEditSchema,
  ReservationParams,
  ReservationSchema,
} from '../schemas/reservations.ts';
import type { RouteOptions } from '../services/context.ts';
import {
  createReservation,
  editReservation,
  findReservation,
  listReservations,
  reservationWire,
  userIdOf,
} from '../services/reservations.ts';

const tags = ['reservations'];

export const reservationRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/reservations',
    {
      config: { auth: 'account' },
      schema: {
        operationId: 'createReservation',
        tags,
        summary: 'Reserve Macs for at least 24 hours, paid up front; returns the reservation key once',
        body: ReservationCreateSchema,
        response: { 201: ReservationCreatedSchema, ...errorResponses(400, 401, 402, 403, 409, 503) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { reservation, key } = await createReservation(ctx, principal, request.body);
      return reply
        .code(201)
        .send({ ...reservationWire(reservation, await userIdOf(ctx, principal.account)), key });
    },
  );

  app.get(
    '/v1/reservations',
    {
      schema: {
        operationId: 'listReservations',
        tags,
        summary: "The account's reservations, past ones included (a reservation key sees its own)",
        response: { 200: Type.Array(ReservationSchema), ...errorResponses(401) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const userId = await userIdOf(ctx, principal.account);
      return (await listReservations(ctx, principal)).map((r) => reservationWire(r, userId));
    },
  );

  app.get(
    '/v1/reservations/me',
    {
      config: { auth: 'reservation' },
      schema: {
        operationId: 'getMyReservation',
        tags,
        summary: "The reservation key's own reservation",
        response: { 200: ReservationSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const reservation = await findReservation(ctx, principal, principal.reservation!);
      return reservationWire(reservation, await userIdOf(ctx, principal.account));
    },
  );

  app.get(
    '/v1/reservations/:reservationID',
    {
      schema: {
        operationId: 'getReservation',
        tags,
        summary: 'One reservation',
        params: ReservationParams,
        response: { 200: ReservationSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const reservation = await findReservation(ctx, principal, request.params.reservationID);
      return reservationWire(reservation, await userIdOf(ctx, principal.account));
    },
  );

  app.patch(
    '/v1/reservations/:reservationID',
    {
      config: { auth: 'account' },
      schema: {
        operationId: 'updateReservation',
        tags,
        summary:
          'Add hours (paid at the rate kept from the purchase) or change the layout (no sandboxes running)',
        params: ReservationParams,
        body: ReservationEditSchema,
        response: { 200: ReservationSchema, ...errorResponses(400, 401, 402, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const reservation = await editReservation(ctx, principal, request.params.reservationID, request.body);
      return reservationWire(reservation, await userIdOf(ctx, principal.account));
    },
  );
};
